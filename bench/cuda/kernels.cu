// The handwritten CUDA baselines of bench_cuda; see kernels.hpp. nvcc's defaults apply
// (contraction on), as for any user's kernel: the host references compare within 1e-5.
#include "kernels.hpp"

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <stdexcept>

namespace cuda_baseline {

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

unsigned blocks_for(unsigned n, int block) { return (n + unsigned(block) - 1) / unsigned(block); }

// What element i of the workload's output is, from x[i] and (where the workload reads it) y[i].
template <map_op Op> __device__ float element(float xi, float yi, const map_scalars& s) {
    if constexpr (Op == map_op::copy) return xi;
    if constexpr (Op == map_op::scale) return s.a * xi;
    if constexpr (Op == map_op::saxpy) return s.a * xi + yi;
    if constexpr (Op == map_op::triad) return xi + s.a * yi;
    if constexpr (Op == map_op::chain8) {
        float t = xi;
#pragma unroll
        for (int k = 0; k < 8; ++k) t = t * s.c[k] + xi;
        return t;
    }
    if constexpr (Op == map_op::issue4_chain4) {
        const float t = s.a * xi + yi;
        return t * t - xi;
    }
    return 0.0f;
}

template <map_op Op> constexpr bool reads_y = Op == map_op::saxpy || Op == map_op::triad || Op == map_op::issue4_chain4;

// One element a thread.
template <map_op Op>
__global__ void map_kernel(const float* __restrict__ x, float* y, float* z, map_scalars s, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* out = Op == map_op::saxpy ? y : z;
    out[i] = element<Op>(x[i], reads_y<Op> ? y[i] : 0.0f, s);
}

// Four adjacent elements a thread, read and written as float4 (cudaMalloc'd: 256-byte aligned);
// the threads past n / 4 take the last n % 4 elements one each.
template <map_op Op>
__global__ void map4_kernel(const float* __restrict__ x, float* y, float* z, map_scalars s, unsigned n) {
    const unsigned q = blockIdx.x * blockDim.x + threadIdx.x, quads = n / 4;
    float* out = Op == map_op::saxpy ? y : z;
    if (q < quads) {
        const float4 u = reinterpret_cast<const float4*>(x)[q];
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if constexpr (reads_y<Op>) v = reinterpret_cast<const float4*>(y)[q];
        reinterpret_cast<float4*>(out)[q] = make_float4(element<Op>(u.x, v.x, s), element<Op>(u.y, v.y, s),
                                                        element<Op>(u.z, v.z, s), element<Op>(u.w, v.w, s));
        return;
    }
    const unsigned i = quads * 4 + (q - quads);
    if (i < n) out[i] = element<Op>(x[i], reads_y<Op> ? y[i] : 0.0f, s);
}

__device__ float warp_sum(float a) {
    for (int offset = 16; offset > 0; offset >>= 1) a += __shfl_down_sync(0xffffffffu, a, offset);
    return a;
}

// The block's sum, in thread 0 (blockDim.x a multiple of 32, at most 1024).
__device__ float block_sum(float a) {
    __shared__ float warps[32];
    a = warp_sum(a);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warps[warp] = a;
    __syncthreads();
    a = threadIdx.x < blockDim.x / 32 ? warps[lane] : 0.0f;
    return warp == 0 ? warp_sum(a) : a;
}

template <bool Dot> __global__ void reduce_partials(const float* __restrict__ x, const float* __restrict__ y,
                                                    unsigned n, float* __restrict__ partials) {
    const unsigned stride = gridDim.x * blockDim.x, first = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned quads = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x); // cudaMalloc'd: 256-byte aligned
    const float4* y4 = reinterpret_cast<const float4*>(y);
    float a = 0.0f;
    for (unsigned i = first; i < quads; i += stride) {
        const float4 u = x4[i];
        if constexpr (Dot) {
            const float4 v = y4[i];
            a += (u.x * v.x + u.y * v.y) + (u.z * v.z + u.w * v.w);
        } else {
            a += (u.x + u.y) + (u.z + u.w);
        }
    }
    for (unsigned i = quads * 4 + first; i < n; i += stride) a += Dot ? x[i] * y[i] : x[i];
    a = block_sum(a);
    if (threadIdx.x == 0) partials[blockIdx.x] = a;
}

__global__ void reduce_final(const float* __restrict__ partials, unsigned count, float* __restrict__ result) {
    float a = 0.0f;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) a += partials[i];
    a = block_sum(a);
    if (threadIdx.x == 0) result[0] = a;
}

__global__ void stencil2d_kernel(const float* __restrict__ u, float* __restrict__ v, float c, unsigned nx,
                                 unsigned ny) {
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const std::size_t i = std::size_t(y) * nx + x;
    const float m = u[i];
    const float west = u[x == 0 ? i : i - 1], east = u[x + 1 < nx ? i + 1 : i];
    const float south = u[y == 0 ? i : i - nx], north = u[y + 1 < ny ? i + nx : i];
    v[i] = m + c * (west + east + south + north - 4.0f * m);
}

// The same step from a tile in shared memory: the block's (by + 2) x (bx + 2) cells, halo
// included and clamped at the grid's edges, read once by the block, then every neighbour read
// from shared memory.
__global__ void stencil2d_tiled_kernel(const float* __restrict__ u, float* __restrict__ v, float c, unsigned nx,
                                       unsigned ny) {
    extern __shared__ float tile[];
    const unsigned bx = blockDim.x, by = blockDim.y, pitch = bx + 2;
    const int x0 = int(blockIdx.x * bx), y0 = int(blockIdx.y * by);
    for (unsigned k = threadIdx.y * bx + threadIdx.x; k < (by + 2) * pitch; k += bx * by) {
        const int ty = int(k / pitch), tx = int(k) - ty * int(pitch);
        const int gx = min(max(x0 + tx - 1, 0), int(nx) - 1), gy = min(max(y0 + ty - 1, 0), int(ny) - 1);
        tile[k] = u[std::size_t(gy) * nx + unsigned(gx)];
    }
    __syncthreads();
    const unsigned x = unsigned(x0) + threadIdx.x, y = unsigned(y0) + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const unsigned t = (threadIdx.y + 1) * pitch + threadIdx.x + 1;
    const float m = tile[t];
    v[std::size_t(y) * nx + x] = m + c * (tile[t - 1] + tile[t + 1] + tile[t - pitch] + tile[t + pitch] - 4.0f * m);
}

// The same step with register blocking along y: a thread a column of `rows` cells, the rows
// before and after the current one kept in registers as it walks down, so that each cell's
// column neighbours are read once; the row neighbours come from L1.
__global__ void stencil2d_columns_kernel(const float* __restrict__ u, float* __restrict__ v, float c, unsigned nx,
                                         unsigned ny, unsigned rows) {
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y0 = blockIdx.y * rows;
    if (x >= nx || y0 >= ny) return;
    const unsigned y1 = min(y0 + rows, ny), west = x == 0 ? x : x - 1, east = x + 1 < nx ? x + 1 : x;
    float south = u[std::size_t(y0 == 0 ? 0 : y0 - 1) * nx + x], m = u[std::size_t(y0) * nx + x];
    for (unsigned y = y0; y < y1; ++y) {
        const std::size_t row = std::size_t(y) * nx;
        const float north = u[std::size_t(y + 1 < ny ? y + 1 : y) * nx + x];
        v[row + x] = m + c * (u[row + west] + u[row + east] + south + north - 4.0f * m);
        south = m;
        m = north;
    }
}

__constant__ float dct_c[64]; // c[v * 8 + k]

template <bool Float4s>
__global__ void dct8x8_kernel(const float* __restrict__ x, float* __restrict__ f, unsigned width, unsigned blocks) {
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= blocks) return;
    const unsigned per_row = width / 8, row = b / per_row, col = b - row * per_row;
    const std::size_t origin = std::size_t(row) * 8 * width + std::size_t(col) * 8;
    float t[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        float in[8];
        const float* p = x + origin + std::size_t(r) * width;
        if (Float4s) {
            const float4 lo = reinterpret_cast<const float4*>(p)[0], hi = reinterpret_cast<const float4*>(p)[1];
            in[0] = lo.x, in[1] = lo.y, in[2] = lo.z, in[3] = lo.w, in[4] = hi.x, in[5] = hi.y, in[6] = hi.z,
            in[7] = hi.w;
        } else {
#pragma unroll
            for (int k = 0; k < 8; ++k) in[k] = p[k];
        }
#pragma unroll
        for (int v = 0; v < 8; ++v) {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) s += dct_c[v * 8 + k] * in[k];
            t[r][v] = s;
        }
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) {
        float out[8];
#pragma unroll
        for (int v = 0; v < 8; ++v) {
            float s = 0.0f;
#pragma unroll
            for (int r = 0; r < 8; ++r) s += dct_c[u * 8 + r] * t[r][v];
            out[v] = s;
        }
        float* q = f + origin + std::size_t(u) * width;
        if (Float4s) {
            reinterpret_cast<float4*>(q)[0] = make_float4(out[0], out[1], out[2], out[3]);
            reinterpret_cast<float4*>(q)[1] = make_float4(out[4], out[5], out[6], out[7]);
        } else {
#pragma unroll
            for (int v = 0; v < 8; ++v) q[v] = out[v];
        }
    }
}

// The 8 x 8 DCT with eight threads a block: thread r reads row r (two float4), transforms it
// into shared memory, and after the barrier computes output row r from the block's eight
// transformed rows (a row of 9 floats, so that the column reads of a warp's threads do not
// share a bank).
__global__ void dct8x8_rows_kernel(const float* __restrict__ x, float* __restrict__ f, unsigned width,
                                   unsigned blocks) {
    extern __shared__ float rows[];
    const unsigned local = threadIdx.x / 8, r = threadIdx.x % 8, b = blockIdx.x * (blockDim.x / 8) + local;
    float* t = rows + local * 72;
    const bool live = b < blocks;
    const unsigned per_row = width / 8, row = live ? b / per_row : 0, col = live ? b - row * per_row : 0;
    const std::size_t origin = std::size_t(row) * 8 * width + std::size_t(col) * 8;
    if (live) {
        const float* p = x + origin + std::size_t(r) * width;
        const float4 lo = reinterpret_cast<const float4*>(p)[0], hi = reinterpret_cast<const float4*>(p)[1];
        const float in[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
        for (int v = 0; v < 8; ++v) {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) s += dct_c[v * 8 + k] * in[k];
            t[r * 9 + v] = s;
        }
    }
    __syncthreads();
    if (!live) return;
    float out[8];
#pragma unroll
    for (int v = 0; v < 8; ++v) {
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < 8; ++k) s += dct_c[r * 8 + k] * t[k * 9 + v];
        out[v] = s;
    }
    float* q = f + origin + std::size_t(r) * width;
    reinterpret_cast<float4*>(q)[0] = make_float4(out[0], out[1], out[2], out[3]);
    reinterpret_cast<float4*>(q)[1] = make_float4(out[4], out[5], out[6], out[7]);
}

} // namespace

std::string device_problem() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
    if (count == 0) return "cudaGetDeviceCount: no CUDA device";
    return "";
}

std::string device_name() {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    return p.name;
}

std::string versions() {
    int runtime = 0, driver = 0;
    check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    auto text = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    return "runtime " + text(runtime) + ", driver " + text(driver);
}

int multiprocessors() {
    int count = 0;
    check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    return count;
}

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

buffer::buffer(std::size_t n) : size_(n) {
    check(cudaMalloc(reinterpret_cast<void**>(&data_), std::max<std::size_t>(n, 1) * sizeof(float)), "cudaMalloc");
}

buffer::~buffer() { cudaFree(data_); }

void buffer::upload(const float* host) {
    check(cudaMemcpy(data_, host, size_ * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

std::vector<float> buffer::download() const {
    std::vector<float> host(size_);
    check(cudaMemcpy(host.data(), data_, size_ * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
    return host;
}

void buffer::fill_nan() { check(cudaMemset(data_, 0xff, size_ * sizeof(float)), "cudaMemset"); }

void map(map_op op, const float* x, float* y, float* z, const map_scalars& s, unsigned n, int block, bool float4s) {
    // Threads: one an element, or one a float4 and one each for the last n % 4 elements.
    const unsigned threads = float4s ? n / 4 + n % 4 : n;
    const unsigned grid = blocks_for(threads, block);
    if (grid == 0) return;
    auto run = [&](auto kernel) { kernel<<<grid, block>>>(x, y, z, s, n); };
    switch (op) {
    case map_op::copy: float4s ? run(map4_kernel<map_op::copy>) : run(map_kernel<map_op::copy>); break;
    case map_op::scale: float4s ? run(map4_kernel<map_op::scale>) : run(map_kernel<map_op::scale>); break;
    case map_op::saxpy: float4s ? run(map4_kernel<map_op::saxpy>) : run(map_kernel<map_op::saxpy>); break;
    case map_op::triad: float4s ? run(map4_kernel<map_op::triad>) : run(map_kernel<map_op::triad>); break;
    case map_op::chain8: float4s ? run(map4_kernel<map_op::chain8>) : run(map_kernel<map_op::chain8>); break;
    case map_op::issue4_chain4:
        float4s ? run(map4_kernel<map_op::issue4_chain4>) : run(map_kernel<map_op::issue4_chain4>);
        break;
    }
    check(cudaGetLastError(), "launching the map kernel");
}

float reduce(const float* x, const float* y_or_null, unsigned n, int blocks, int block, float* partials,
             float* result) {
    if (y_or_null)
        reduce_partials<true><<<blocks, block>>>(x, y_or_null, n, partials);
    else
        reduce_partials<false><<<blocks, block>>>(x, x, n, partials);
    check(cudaGetLastError(), "launching the reduction's first stage");
    reduce_final<<<1, 256>>>(partials, unsigned(blocks), result);
    check(cudaGetLastError(), "launching the reduction's second stage");
    float value = 0;
    check(cudaMemcpy(&value, result, sizeof value, cudaMemcpyDeviceToHost), "reading the reduction's result");
    return value;
}

device_storage::device_storage(std::size_t bytes, const char* what) : bytes_(bytes) {
    check(cudaMalloc(&data_, std::max<std::size_t>(bytes, 1)), what);
}

device_storage::~device_storage() { cudaFree(data_); }

namespace {

// The temporary storage a CUB call asks for: `size(bytes)` is the call with no storage.
template <class Size> std::size_t cub_bytes(Size size, const char* what) {
    std::size_t bytes = 0;
    check(size(bytes), what);
    return bytes;
}

struct above {
    float threshold;
    __host__ __device__ bool operator()(float v) const { return v > threshold; }
};

} // namespace

inclusive_scan::inclusive_scan(unsigned n)
    : n_(n), storage_(cub_bytes(
                          [n](std::size_t& bytes) {
                              return cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const float*>(nullptr),
                                                                   static_cast<float*>(nullptr), n);
                          },
                          "sizing CUB's scan storage"),
                      "cudaMalloc (CUB's scan storage)") {}

void inclusive_scan::run(const float* x, float* y) const {
    std::size_t bytes = storage_.bytes();
    check(cub::DeviceScan::InclusiveSum(storage_.data(), bytes, x, y, n_), "CUB's inclusive scan");
}

scan_by_key::scan_by_key(unsigned n)
    : n_(n),
      storage_(cub_bytes(
                   [n](std::size_t& bytes) {
                       return cub::DeviceScan::InclusiveSumByKey(nullptr, bytes, static_cast<const unsigned*>(nullptr),
                                                                 static_cast<const float*>(nullptr),
                                                                 static_cast<float*>(nullptr), n);
                   },
                   "sizing CUB's scan-by-key storage"),
               "cudaMalloc (CUB's scan-by-key storage)") {}

void scan_by_key::run(const unsigned* keys, const float* x, float* y) const {
    std::size_t bytes = storage_.bytes();
    check(cub::DeviceScan::InclusiveSumByKey(storage_.data(), bytes, keys, x, y, n_), "CUB's inclusive scan by key");
}

select_if::select_if(unsigned n, float threshold)
    : n_(n), threshold_(threshold),
      storage_(cub_bytes(
                   [n, threshold](std::size_t& bytes) {
                       return cub::DeviceSelect::If(nullptr, bytes, static_cast<const float*>(nullptr),
                                                    static_cast<float*>(nullptr), static_cast<unsigned*>(nullptr), n,
                                                    above{threshold});
                   },
                   "sizing CUB's select storage"),
               "cudaMalloc (CUB's select storage)"),
      count_(sizeof(unsigned), "cudaMalloc (CUB's selected count)") {}

unsigned select_if::run(const float* in, float* out) const {
    std::size_t bytes = storage_.bytes();
    unsigned* selected = static_cast<unsigned*>(count_.data());
    check(cub::DeviceSelect::If(storage_.data(), bytes, in, out, selected, n_, above{threshold_}), "CUB's select");
    unsigned count = 0;
    check(cudaMemcpy(&count, selected, sizeof count, cudaMemcpyDeviceToHost), "reading CUB's selected count");
    return count;
}

radix_sort::radix_sort(unsigned n)
    : n_(n), storage_(cub_bytes(
                          [n](std::size_t& bytes) {
                              return cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const float*>(nullptr),
                                                                    static_cast<float*>(nullptr), n);
                          },
                          "sizing CUB's radix sort storage"),
                      "cudaMalloc (CUB's radix sort storage)") {}

void radix_sort::run(const float* in, float* out) const {
    std::size_t bytes = storage_.bytes();
    check(cub::DeviceRadixSort::SortKeys(storage_.data(), bytes, in, out, n_), "CUB's radix sort");
}

index_buffer::index_buffer(const std::vector<unsigned>& host) {
    check(cudaMalloc(&data_, std::max<std::size_t>(host.size(), 1) * sizeof(unsigned)), "cudaMalloc (indices)");
    check(cudaMemcpy(data_, host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice), "uploading indices");
}

index_buffer::~index_buffer() { cudaFree(data_); }

namespace {

__global__ void csr_scalar_kernel(const unsigned* __restrict__ row_ptr, const unsigned* __restrict__ col,
                                  const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y,
                                  unsigned rows) {
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (unsigned k = row_ptr[r]; k < row_ptr[r + 1]; ++k) s += val[k] * x[col[k]];
    y[r] = s;
}

template <int Lanes> __global__ void csr_vector_kernel(const unsigned* __restrict__ row_ptr,
                                                       const unsigned* __restrict__ col, const float* __restrict__ val,
                                                       const float* __restrict__ x, float* __restrict__ y,
                                                       unsigned rows) {
    const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x, r = thread / Lanes, lane = thread % Lanes;
    float s = 0.0f;
    if (r < rows)
        for (unsigned k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += Lanes) s += val[k] * x[col[k]];
    for (int offset = Lanes / 2; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset, Lanes);
    if (lane == 0 && r < rows) y[r] = s;
}

__global__ void sell32_kernel(const unsigned* __restrict__ slice_ptr, const unsigned* __restrict__ length,
                              const unsigned* __restrict__ col, const float* __restrict__ val,
                              const float* __restrict__ x, float* __restrict__ y, unsigned rows) {
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const unsigned first = slice_ptr[r / 32] + r % 32, end = first + length[r] * 32;
    float s = 0.0f;
    for (unsigned k = first; k < end; k += 32) s += val[k] * x[col[k]];
    y[r] = s;
}

} // namespace

void spmv_csr_scalar(const unsigned* row_ptr, const unsigned* col, const float* val, const float* x, float* y,
                     unsigned rows, int block) {
    csr_scalar_kernel<<<blocks_for(rows, block), block>>>(row_ptr, col, val, x, y, rows);
    check(cudaGetLastError(), "launching the CSR kernel");
}

void spmv_csr_vector(const unsigned* row_ptr, const unsigned* col, const float* val, const float* x, float* y,
                     unsigned rows, int lanes, int block) {
    const unsigned grid = blocks_for(rows * unsigned(lanes), block);
    switch (lanes) {
    case 2: csr_vector_kernel<2><<<grid, block>>>(row_ptr, col, val, x, y, rows); break;
    case 4: csr_vector_kernel<4><<<grid, block>>>(row_ptr, col, val, x, y, rows); break;
    case 8: csr_vector_kernel<8><<<grid, block>>>(row_ptr, col, val, x, y, rows); break;
    case 16: csr_vector_kernel<16><<<grid, block>>>(row_ptr, col, val, x, y, rows); break;
    case 32: csr_vector_kernel<32><<<grid, block>>>(row_ptr, col, val, x, y, rows); break;
    default: throw std::runtime_error("spmv_csr_vector: lanes is 2, 4, 8, 16 or 32");
    }
    check(cudaGetLastError(), "launching the vector CSR kernel");
}

void spmv_sell32(const unsigned* slice_ptr, const unsigned* length, const unsigned* col, const float* val,
                 const float* x, float* y, unsigned rows, int block) {
    sell32_kernel<<<blocks_for(rows, block), block>>>(slice_ptr, length, col, val, x, y, rows);
    check(cudaGetLastError(), "launching the sliced ELL kernel");
}

// The coefficients into constant memory, at the first call of either DCT.
static void load_dct_coefficients(const float* coefficients) {
    static const bool loaded = [&] {
        check(cudaMemcpyToSymbol(dct_c, coefficients, 64 * sizeof(float)), "copying the DCT coefficients");
        return true;
    }();
    (void)loaded;
}

void dct8x8(const float* x, float* f, unsigned width, unsigned height, const float* coefficients, int block,
            bool float4s) {
    load_dct_coefficients(coefficients);
    const unsigned blocks = (width / 8) * (height / 8);
    if (float4s)
        dct8x8_kernel<true><<<blocks_for(blocks, block), block>>>(x, f, width, blocks);
    else
        dct8x8_kernel<false><<<blocks_for(blocks, block), block>>>(x, f, width, blocks);
    check(cudaGetLastError(), "launching the DCT kernel");
}

void dct8x8_rows(const float* x, float* f, unsigned width, unsigned height, const float* coefficients, int block) {
    load_dct_coefficients(coefficients);
    const unsigned blocks = (width / 8) * (height / 8), per_group = unsigned(block) / 8;
    const std::size_t shared = std::size_t(per_group) * 72 * sizeof(float);
    dct8x8_rows_kernel<<<blocks_for(blocks, int(per_group)), block, shared>>>(x, f, width, blocks);
    check(cudaGetLastError(), "launching the DCT kernel (eight threads a block)");
}

void stencil2d_tiled(const float* u, float* v, float c, unsigned nx, unsigned ny, int bx, int by) {
    const dim3 block(bx, by), grid(blocks_for(nx, bx), blocks_for(ny, by));
    const std::size_t shared = std::size_t(by + 2) * std::size_t(bx + 2) * sizeof(float);
    stencil2d_tiled_kernel<<<grid, block, shared>>>(u, v, c, nx, ny);
    check(cudaGetLastError(), "launching the shared-memory stencil kernel");
}

void stencil2d_columns(const float* u, float* v, float c, unsigned nx, unsigned ny, int bx, int rows) {
    const dim3 block(bx, 1), grid(blocks_for(nx, bx), blocks_for(ny, rows));
    stencil2d_columns_kernel<<<grid, block>>>(u, v, c, nx, ny, unsigned(rows));
    check(cudaGetLastError(), "launching the register-blocked stencil kernel");
}

void stencil2d(const float* u, float* v, float c, unsigned nx, unsigned ny, int bx, int by) {
    const dim3 block(bx, by), grid(blocks_for(nx, bx), blocks_for(ny, by));
    stencil2d_kernel<<<grid, block>>>(u, v, c, nx, ny);
    check(cudaGetLastError(), "launching the stencil kernel");
}

void device_copy(const float* from, float* to, std::size_t n) {
    check(cudaMemcpyAsync(to, from, n * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
}

} // namespace cuda_baseline
