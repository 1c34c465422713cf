include(GNUInstallDirs)

# idem_module(<target> <name>): makes <target> one of idem's library modules,
# exported as idem::<name> (the in-tree alias too) and installed as
# libidem_<name>. Modules see src/ only while they are built: the installed
# package has include/ alone. The modules of the base (core, sqlite, guards,
# connect) make the package's "sqlite" component; idem_backend adds the others.
function(idem_module target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME idem_${name})
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:idem_internal>)
  add_library(idem::${name} ALIAS ${target})
  set_property(GLOBAL APPEND PROPERTY IDEM_MODULES ${target})
endfunction()

# idem_backend(<target> <component> <opener symbol>): an optional backend, the
# find_package component <component> and target idem::<component>, exported
# on its own so a program that does not ask for it needs none of its packages.
# <target> defines <opener symbol>, its entry in idem::connect's tables
# (src/connect/backend_openers.h); whatever links <target> links with
# --undefined=<symbol>, which keeps the opener in a static link.
function(idem_backend target component symbol)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component} OUTPUT_NAME idem_${component}
    IDEM_OPENER_SYMBOL ${symbol})
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:idem_internal>)
  target_link_options(${target} INTERFACE "LINKER:--undefined=${symbol}")
  add_library(idem::${component} ALIAS ${target})
  set_property(GLOBAL APPEND PROPERTY IDEM_BACKENDS ${target})
  # The in-tree idem_connect (every backend built) links them all.
  target_link_libraries(idem_connect INTERFACE ${target})
endfunction()
