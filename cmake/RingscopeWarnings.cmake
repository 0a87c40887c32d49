# Warnings and sanitizers for every target of the project (not for an out-of-tree plugin).
add_compile_options(-Wall -Wextra -Wno-unused-parameter)
if(RINGSCOPE_WERROR)
  add_compile_options(-Werror)
endif()
if(RINGSCOPE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
