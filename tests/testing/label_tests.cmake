# idem_label_tests(<target> <label>...): gives every test that
# gtest_discover_tests found in <target> all the labels, e.g. integration and
# postgres, so `ctest -L postgres` runs one backend's slice. (Passing a list as
# LABELS to gtest_discover_tests keeps only the first label: its discovery
# script splits the list.) ctest includes the generated file after the list of
# discovered tests, which gtest_discover_tests stores in <target>_TESTS.
function(idem_label_tests target)
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
  file(WRITE "${file}"
    "foreach(t IN LISTS ${target}_TESTS)\n"
    "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${ARGN}\")\n"
    "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()
