# Run at build time (cmake -P) by apps/idem: writes OUT, a header defining
# IDEM_COMMIT, the commit this build was made from ("-dirty" when the work tree
# had changes), or COMMIT when given (a build from a source tarball, which has
# no git: packagers pass -DIDEM_COMMIT=...), else "unknown". The file is
# rewritten only when the text changes, so a build with no new commit
# recompiles nothing.
if(NOT COMMIT)
  execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12 --exclude=*
    OUTPUT_VARIABLE COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_failed)
  if(git_failed OR NOT COMMIT)
    set(COMMIT unknown)
  endif()
endif()
set(text "#define IDEM_COMMIT \"${COMMIT}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
