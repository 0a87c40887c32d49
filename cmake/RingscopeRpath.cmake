# ringscope_origin_rpath(TARGET INSTALL_DIR): the RUNPATH of an installed binary, $ORIGIN-based in
# the build tree and once installed into INSTALL_DIR (relative to the prefix), and never empty.
#
# CMake's own build-tree RUNPATH of a target with an install rule ends in ':' (room for the edit at
# install time), and an empty entry is the current directory: a library planted where ringscope is
# started would be loaded. So the build tree gets "$ORIGIN/<path to build/lib>" with its '/' doubled
# until the string is as long as the installed "$ORIGIN/<path to LIBDIR>", which install() then writes
# over it in place (ELF strings can shrink, not grow).
function(ringscope_origin_rpath target install_dir)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    get_target_property(out_dir ${target} RUNTIME_OUTPUT_DIRECTORY)
  else()
    get_target_property(out_dir ${target} LIBRARY_OUTPUT_DIRECTORY)
  endif()
  file(RELATIVE_PATH build_rel ${out_dir} ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  file(RELATIVE_PATH install_rel /prefix/${install_dir} /prefix/${CMAKE_INSTALL_LIBDIR})
  string(REGEX REPLACE "/$" "" install_rel "${install_rel}")
  string(REGEX REPLACE "/$" "" build_rel "${build_rel}")
  set(installed "$ORIGIN/${install_rel}")
  set(built "$ORIGIN/${build_rel}")
  string(LENGTH "${installed}" want)
  string(LENGTH "${built}" have)
  while(have LESS want)
    string(REPLACE "$ORIGIN/" "$ORIGIN//" built "${built}")
    math(EXPR have "${have} + 1")
  endwhile()
  set_target_properties(${target} PROPERTIES BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${built}")
  install(CODE "file(RPATH_CHANGE FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${install_dir}/$<TARGET_FILE_NAME:${target}>\"
    OLD_RPATH \"${built}\" NEW_RPATH \"${installed}\")")
endfunction()
