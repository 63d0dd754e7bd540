// The handwritten CUDA baselines of bench_cuda: the kernels a CUDA programmer would write for
// each workload (CUB's scan for the scan, CUB's radix sort for the sort), each launched with the
// geometry bench_cuda tunes.
// Plain C++ entry points, so that the benchmark program, which includes Loom, Boost.Proto and
// Google Benchmark, is compiled by the host compiler and only kernels.cu by nvcc. Every call
// throws std::runtime_error with the CUDA runtime's words when the runtime reports an error.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuda_baseline {

// Empty when device 0 is usable; otherwise why not, in the runtime's words.
std::string device_problem();
std::string device_name();
std::string versions(); // "runtime 13.0, driver 13.0"
int multiprocessors();

// Waits for all work on the device; throws on an error of an earlier launch.
void synchronize();

// A device array of floats (cudaMalloc), freed with the object.
class buffer {
public:
    explicit buffer(std::size_t n);
    ~buffer();
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;

    float* data() const { return data_; }
    std::size_t size() const { return size_; }
    void upload(const float* host);
    std::vector<float> download() const;
    void fill_nan(); // every byte 0xff: a quiet NaN in every element, to poison an output

private:
    float* data_ = nullptr;
    std::size_t size_ = 0;
};

// The element-wise workloads, one element a thread, or with `float4s` four adjacent elements a
// thread read and written as float4 (the last n % 4 one a thread):
//   copy z = x; scale z = a x; saxpy y = a x + y; triad z = x + a y;
//   chain8 t = x, then t = t c[k] + x for k = 0..7, z = t; issue4_chain4 z = (a x + y)^2 - x.
enum class map_op { copy, scale, saxpy, triad, chain8, issue4_chain4 };
struct map_scalars {
    float a = 0;
    float c[8] = {};
};
void map(map_op op, const float* x, float* y, float* z, const map_scalars& s, unsigned n, int block,
         bool float4s = false);

// sum(x), or dot(x, y) = sum(x * y): `blocks` blocks of `block` threads fold float4 loads over
// a grid-stride loop, reduce with warp shuffles and write one partial each (into `partials`,
// at least `blocks` long); one block then folds the partials into `result[0]`. Returns that
// value, read back to the host (as Loom's loom::sum does).
float reduce(const float* x, const float* y_or_null, unsigned n, int blocks, int block, float* partials, float* result);

// Device memory of `bytes` (at least 1; cudaMalloc), freed with the object: CUB's temporary
// storage, sized once by the call that uses it.
class device_storage {
public:
    device_storage(std::size_t bytes, const char* what);
    ~device_storage();
    device_storage(const device_storage&) = delete;
    device_storage& operator=(const device_storage&) = delete;
    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

// CUB's DeviceScan::InclusiveSum, with its temporary storage allocated once for n elements.
class inclusive_scan {
public:
    explicit inclusive_scan(unsigned n);
    void run(const float* x, float* y) const;

private:
    unsigned n_;
    device_storage storage_;
};

// CUB's DeviceScan::InclusiveSumByKey of n floats under 32-bit unsigned keys (a segment per run
// of equal keys), its temporary storage allocated once.
class scan_by_key {
public:
    explicit scan_by_key(unsigned n);
    void run(const unsigned* keys, const float* x, float* y) const;

private:
    unsigned n_;
    device_storage storage_;
};

// CUB's DeviceSelect::If of n floats, keeping those above `threshold`, in order, its temporary
// storage allocated once; run returns the count, read back to the host (as loom::copy_if and
// thrust::copy_if return it).
class select_if {
public:
    select_if(unsigned n, float threshold);
    unsigned run(const float* in, float* out) const;

private:
    unsigned n_;
    float threshold_;
    device_storage storage_, count_;
};

// CUB's DeviceRadixSort::SortKeys of n floats, ascending, from `in` to `out`, its temporary
// storage allocated once.
class radix_sort {
public:
    explicit radix_sort(unsigned n);
    void run(const float* in, float* out) const;

private:
    unsigned n_;
    device_storage storage_;
};

// A device array of 32-bit unsigned indices (cudaMalloc), freed with the object.
class index_buffer {
public:
    explicit index_buffer(const std::vector<unsigned>& host);
    ~index_buffer();
    index_buffer(const index_buffer&) = delete;
    index_buffer& operator=(const index_buffer&) = delete;
    const unsigned* data() const { return data_; }

private:
    unsigned* data_ = nullptr;
};

// y = A x for a sparse matrix of `rows` rows:
// - CSR, a row per thread (row_ptr of rows + 1, col and val of the entries);
// - CSR, `lanes` threads a row (2 to 32, a power of two), their sums added by warp shuffles;
// - sliced ELL of 32-row slices, a row per thread: slice s from slice_ptr[s], the k-th entry of
//   its lane l at + k * 32 + l, each row read up to length[row].
void spmv_csr_scalar(const unsigned* row_ptr, const unsigned* col, const float* val, const float* x, float* y,
                     unsigned rows, int block);
void spmv_csr_vector(const unsigned* row_ptr, const unsigned* col, const float* val, const float* x, float* y,
                     unsigned rows, int lanes, int block);
void spmv_sell32(const unsigned* slice_ptr, const unsigned* length, const unsigned* col, const float* val,
                 const float* x, float* y, unsigned rows, int block);

// v = u + c (u[W] + u[E] + u[S] + u[N] - 4 u) on an nx by ny grid, rows contiguous, reads
// clamped at the edges; blocks of bx by by threads.
void stencil2d(const float* u, float* v, float c, unsigned nx, unsigned ny, int bx, int by);
// The same, each block reading its tile and halo into shared memory once.
void stencil2d_tiled(const float* u, float* v, float c, unsigned nx, unsigned ny, int bx, int by);
// The same with register blocking along y: blocks of bx threads, a thread a column of `rows` cells.
void stencil2d_columns(const float* u, float* v, float c, unsigned nx, unsigned ny, int bx, int rows);

// The 2-D DCT of every 8 x 8 block of a width x height image (both multiples of 8), F = C X C^T,
// C the 64 coefficients c[v * 8 + k] (kept in constant memory from the first call): a thread a
// block, its 64 values in registers, the rows then the columns; with `float4s` each row read and
// written as two float4 (the rows of a block are 32-byte aligned).
void dct8x8(const float* x, float* f, unsigned width, unsigned height, const float* coefficients, int block,
            bool float4s);

// The same with eight threads a block (block threads, a multiple of 8): thread r reads and
// transforms row r, the block's transformed rows meet in shared memory, thread r writes output
// row r; rows read and written as float4s.
void dct8x8_rows(const float* x, float* f, unsigned width, unsigned height, const float* coefficients, int block);

// cudaMemcpyAsync device to device: the copy-bandwidth reference.
void device_copy(const float* from, float* to, std::size_t n);

} // namespace cuda_baseline
