# Install rules: headers, the module libraries, the CMake package
# (find_package(idem) → idem::core, idem::sqlite, …, idem::idem) and idem.pc.
include(CMakePackageConfigHelpers)

get_property(idem_modules GLOBAL PROPERTY IDEM_MODULES)
install(TARGETS ${idem_modules} EXPORT idemTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/idem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET idem)
  install(TARGETS idem RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(idem_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/idem)
install(EXPORT idemTargets NAMESPACE idem:: DESTINATION ${idem_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/idemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/idemConfig.cmake INSTALL_DESTINATION ${idem_cmake_dir})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/idemConfig.cmake ${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  DESTINATION ${idem_cmake_dir})

# pkg-config: static libraries, so every module and every dependency is in
# Libs/Requires (not .private), most dependent first.
set(idem_pc_libs "")
set(idem_pc_requires "sqlite3 libxxhash")
foreach(option_lib IN ITEMS POSTGRES:postgres:libpq MYSQL:mysql:libmariadb RABBITMQ:rabbitmq:librabbitmq
    KAFKA:kafka:rdkafka REDIS:redis:hiredis)
  string(REPLACE ":" ";" parts ${option_lib})
  list(GET parts 0 option)
  list(GET parts 1 lib)
  list(GET parts 2 pc)
  if(IDEM_WITH_${option})
    string(APPEND idem_pc_libs " -lidem_${lib}")
    string(APPEND idem_pc_requires " ${pc}")
  endif()
endforeach()
set(idem_pc_libs "-lidem_connect -lidem_guards${idem_pc_libs} -lidem_sqlite -lidem_core")
file(RELATIVE_PATH idem_pc_up /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" idem_pc_up "${idem_pc_up}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/idem.pc.in ${PROJECT_BINARY_DIR}/idem.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/idem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
