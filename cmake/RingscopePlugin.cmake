# ringscope_add_plugin(NAME SOURCES ...): a plugin shared object built in this tree, placed in
# build/plugins/ where build/ringscope finds it, and installed beside the library.
function(ringscope_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ringscope::sdk ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${RINGSCOPE_PLUGIN_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden)
  install(TARGETS ${name} LIBRARY DESTINATION ${RINGSCOPE_PLUGIN_INSTALL_DIR})
  ringscope_origin_rpath(${name} ${RINGSCOPE_PLUGIN_INSTALL_DIR})
endfunction()
