# Install rules: headers, the module libraries, the CMake package
# (find_package(idem [COMPONENTS …]) → idem::core, idem::sqlite, …, idem::idem)
# and the pkg-config files (idem.pc: everything built; idem-<component>.pc each).
include(CMakePackageConfigHelpers)

set(idem_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/idem)
set(idem_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# Libraries and headers are the development package's (libidem-dev); the tool is the idem package's.
set(idem_dev COMPONENT dev)

# The base (core, sqlite, guards, connect) is the "sqlite" component; each
# backend has its own export file, read only when its component is asked for.
get_property(idem_modules GLOBAL PROPERTY IDEM_MODULES)
install(TARGETS ${idem_modules} EXPORT idem-sqlite-targets ${idem_dev}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT idem-sqlite-targets NAMESPACE idem:: DESTINATION ${idem_cmake_dir} ${idem_dev})
set(idem_built_components sqlite)
get_property(idem_backends GLOBAL PROPERTY IDEM_BACKENDS)
foreach(target IN LISTS idem_backends)
  get_target_property(component ${target} EXPORT_NAME)
  list(APPEND idem_built_components ${component})
  install(TARGETS ${target} EXPORT idem-${component}-targets ${idem_dev}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT idem-${component}-targets NAMESPACE idem:: DESTINATION ${idem_cmake_dir} ${idem_dev})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/idem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${idem_dev})
if(TARGET idem)
  install(TARGETS idem RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/idemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/idemConfig.cmake INSTALL_DESTINATION ${idem_cmake_dir})
# docs/compatibility.md: in 0.x a minor version may break, from 1.0 only a major one.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(idem_compatibility SameMinorVersion)
else()
  set(idem_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  COMPATIBILITY ${idem_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/idemConfig.cmake ${PROJECT_BINARY_DIR}/idemConfigVersion.cmake
  DESTINATION ${idem_cmake_dir} ${idem_dev})

# pkg-config. The libraries are static, so each file lists its libraries and
# their dependencies in Libs/Requires (not .private). A backend's file names
# its opener with --undefined (see idem_backend): without it the static link
# would drop the backend and its URLs would be refused.
file(RELATIVE_PATH idem_pc_up /${idem_pc_dir} /)
string(REGEX REPLACE "/$" "" idem_pc_up "${idem_pc_up}")
# idem_pc(<file> <description> <requires> <libs>)
function(idem_pc file description requires libs)
  set(idem_pc_description "${description}")
  set(idem_pc_requires "${requires}")
  set(idem_pc_libs "${libs}")
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/idem.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${file}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${file}.pc DESTINATION ${idem_pc_dir} ${idem_dev})
endfunction()

idem_pc(idem-sqlite "the SQLite store, the embedded queue, the guards and the URL functions" "sqlite3"
  "-lidem_connect -lidem_guards -lidem_sqlite -lidem_core -pthread")
set(idem_all_requires "idem-sqlite")
foreach(target IN LISTS idem_backends)
  get_target_property(component ${target} EXPORT_NAME)
  get_target_property(symbol ${target} IDEM_OPENER_SYMBOL)
  set(pc_module_postgres libpq)
  set(pc_module_mysql libmariadb)
  set(pc_module_rabbitmq librabbitmq)
  set(pc_module_kafka rdkafka)
  set(pc_module_redis hiredis)
  idem_pc(idem-${component} "the ${component} backend" "idem-sqlite ${pc_module_${component}}"
    "-Wl,--undefined=${symbol} -lidem_${component}")
  string(APPEND idem_all_requires " idem-${component}")
endforeach()
idem_pc(idem "every backend this idem was built with" "${idem_all_requires}" "")
