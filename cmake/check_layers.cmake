# SPDX-License-Identifier: MIT
# The layers of AttnScope, checked on every build: each folder may include only from the layers
# below it. A violation fails the build with the file, the include and the rule.
#   cmake -DSOURCE_DIR=<repository root> -P cmake/check_layers.cmake
#
#   core/model     the trace and its index          <- nothing else of AttnScope
#   core/io        readers and writers               <- model
#   core/analysis  roles, calls, costs, roofs        <- model
#   core/report    summary, diff, ranks, findings    <- model, io, analysis
#   core/document  the one way a trace is opened     <- all of core
#   kernels        the workloads and the run session <- core
#   ui             the window (Qt)                   <- core, the run-session interface of kernels
#                                                       (its own runs', and a profiled program's)
#   app            the executable and its verbs      <- core, the run-session interface, ui's requests
# core is plain C++: no Qt, no CUDA.
set(run_session_interface "kernels/run_session\\.h|kernels/cuda_backend\\.h|kernels/program_profile\\.h|kernels/temp_folder\\.h|kernels/whatif\\.h")
set(rules
  "core/model|core/model/"
  "core/io|core/(model|io)/"
  "core/analysis|core/(model|analysis)/"
  "core/report|core/(model|io|analysis|report)/"
  "core/document|core/"
  "kernels|(core|kernels)/"
  "ui|core/|${run_session_interface}"
  "app|core/|${run_session_interface}|ui/gui_requests\\.h")
set(failures "")
foreach(rule IN LISTS rules)
  string(FIND "${rule}" "|" bar)
  string(SUBSTRING "${rule}" 0 ${bar} folder)
  math(EXPR rest "${bar} + 1")
  string(SUBSTRING "${rule}" ${rest} -1 allowed)
  file(GLOB_RECURSE sources "${SOURCE_DIR}/${folder}/*.h" "${SOURCE_DIR}/${folder}/*.cpp"
       "${SOURCE_DIR}/${folder}/*.cu" "${SOURCE_DIR}/${folder}/*.inc")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    file(RELATIVE_PATH name "${SOURCE_DIR}" "${source}")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*" "\\1" header "${line}")
      set(bad "")
      if(header MATCHES "^(core|kernels|ui|app)/" AND NOT header MATCHES "^(${allowed})")
        set(bad "${folder} may include only ${allowed}")
      elseif(folder MATCHES "^core" AND header MATCHES "^(Q[A-Za-z]+|cuda.*|cupti.*)(\\.h)?$")
        set(bad "core is plain C++: no Qt, no CUDA")
      elseif(folder STREQUAL "kernels" AND header MATCHES "^Q[A-Za-z]+$")
        set(bad "kernels use no Qt")
      endif()
      if(bad)
        string(APPEND failures "  ${name}: #include \"${header}\" (${bad})\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "Includes that cross AttnScope's layers:\n${failures}")
endif()
