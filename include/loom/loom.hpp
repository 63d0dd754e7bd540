// Loom: ordinary arithmetic on device vectors, fused and compiled to OpenCL C or CUDA C++.
//
//   loom::context ctx;
//   loom::vector<float> x(ctx, host), y(ctx, host.size(), 1.0f);
//   y = 2.5f * x + loom::sin(y);
//   std::vector<float> out = y.to_host();
#pragma once

#include "loom/array3.hpp"
#include "loom/binary_search.hpp"
#include "loom/block.hpp"
#include "loom/compaction.hpp"
#include "loom/compensated_sum.hpp"
#include "loom/keyed.hpp"
#include "loom/context.hpp"
#include "loom/counted_index.hpp"
#include "loom/devices.hpp"
#include "loom/error.hpp"
#include "loom/expr/functions.hpp"
#include "loom/fft.hpp"
#include "loom/inspect.hpp"
#include "loom/interop.hpp"
#include "loom/kernel.hpp"
#include "loom/log.hpp"
#include "loom/map.hpp"
#include "loom/matmul.hpp"
#include "loom/matrix.hpp"
#include "loom/merge.hpp"
#include "loom/name.hpp"
#include "loom/reduce.hpp"
#include "loom/scalar.hpp"
#include "loom/sort.hpp"
#include "loom/sparse.hpp"
#include "loom/source_function.hpp"
#include "loom/scan.hpp"
#include "loom/search.hpp"
#include "loom/loop.hpp"
#include "loom/pipeline.hpp"
#include "loom/random.hpp"
#include "loom/stencil.hpp"
#include "loom/strided.hpp"
#include "loom/tie.hpp"
#include "loom/vector.hpp"
