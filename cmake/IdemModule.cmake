include(GNUInstallDirs)

# idem_module(<target> <name>): makes <target> one of idem's library modules,
# exported as idem::<name> (the in-tree alias too) and installed as
# libidem_<name>. Modules see src/ only while they are built: the installed
# package has include/ alone.
function(idem_module target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME idem_${name})
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:idem_internal>)
  add_library(idem::${name} ALIAS ${target})
  set_property(GLOBAL APPEND PROPERTY IDEM_MODULES ${target})
endfunction()
