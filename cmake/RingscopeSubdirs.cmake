# Adds every direct child folder of DIR that has a CMakeLists.txt, in name order, so that a new
# plugin, example or test area needs no edit of its parent. RINGSCOPE_SKIP_SUBDIRS (a list of
# paths relative to the source root, e.g. "plugins/ipt;tests/ipt") leaves folders out of a build.
set(RINGSCOPE_SKIP_SUBDIRS "" CACHE STRING "Source folders to leave out of the build")
function(ringscope_add_subdirs dir)
  file(GLOB children LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/${dir}
       ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*)
  list(SORT children)
  foreach(child IN LISTS children)
    get_filename_component(full ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/${child} ABSOLUTE)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${full})
    if(rel IN_LIST RINGSCOPE_SKIP_SUBDIRS)
      continue()
    endif()
    if(EXISTS ${full}/CMakeLists.txt)
      add_subdirectory(${dir}/${child})
    endif()
  endforeach()
endfunction()
