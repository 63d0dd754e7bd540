// loom::vector<T>: a vector on a device. Assigning an expression records a statement
// (nothing runs until a flush); host reads and writes flush first, so they always see
// the program's order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/context.hpp"
#include "loom/detail/vector_fields.hpp"
#include "loom/error.hpp"
#include "loom/expr/functions.hpp"
#include "loom/expr/lower.hpp"
#include "loom/expr/operands.hpp"
#include "loom/expr/vector_ref.hpp"
#include "loom/interop.hpp"

namespace loom {

namespace expr {

// Whether E (as deduced from a forwarding reference) is an rvalue expression that is just a
// terminal holding a Ref (a vector_ref<T>, a matrix_ref<T>), as `loom::sum(e, loom::axis<1>)`
// returns: loom::vector and loom::matrix take such a value's memory when it alone holds it.
template <class E, class = void> struct is_terminal_expression : std::false_type {};
template <class E> struct is_terminal_expression<E, std::enable_if_t<proto::is_expr<E>::value>>
    : std::is_same<typename proto::tag_of<E>::type, proto::tag::terminal> {};
template <class E, class Ref, bool = !std::is_lvalue_reference_v<E> && is_terminal_expression<std::decay_t<E>>::value>
struct is_temporary_of : std::false_type {};
template <class E, class Ref> struct is_temporary_of<E, Ref, true>
    : std::is_same<std::decay_t<typename proto::result_of::value<const std::decay_t<E>&>::type>, Ref> {};
template <class E, class T> using is_vector_temporary = is_temporary_of<E, vector_ref<T>>;

} // namespace expr

namespace detail {

// A position in a loom::vector (V, or const V for reading only). Random access; dereferencing
// gives an element proxy (or the value), so each access flushes and moves one element: fine for
// host algorithms over a few elements, slow over many. loom::copy of iterator ranges moves a
// whole range in one transfer.
template <class V> class vector_iterator {
    using vector_type = std::remove_const_t<V>;

public:
    using value_type = typename vector_type::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<std::is_const_v<V>, value_type, typename vector_type::element_proxy>;
    using pointer = void;
    using iterator_category = std::random_access_iterator_tag;

    vector_iterator() = default;
    vector_iterator(V* v, std::size_t i) : v_(v), i_(i) {}
    // An iterator converts to a const one.
    template <class W, std::enable_if_t<std::is_same_v<const W, V> && !std::is_same_v<W, V>, int> = 0>
    vector_iterator(const vector_iterator<W>& other) : v_(other.owner()), i_(other.position()) {}

    reference operator*() const { return (*v_)[i_]; }
    reference operator[](difference_type k) const { return (*v_)[std::size_t(difference_type(i_) + k)]; }

    vector_iterator& operator++() { return ++i_, *this; }
    vector_iterator& operator--() { return --i_, *this; }
    vector_iterator operator++(int) { return {v_, i_++}; }
    vector_iterator operator--(int) { return {v_, i_--}; }
    vector_iterator& operator+=(difference_type k) { return i_ = std::size_t(difference_type(i_) + k), *this; }
    vector_iterator& operator-=(difference_type k) { return *this += -k; }
    friend vector_iterator operator+(vector_iterator it, difference_type k) { return it += k; }
    friend vector_iterator operator+(difference_type k, vector_iterator it) { return it += k; }
    friend vector_iterator operator-(vector_iterator it, difference_type k) { return it -= k; }
    friend difference_type operator-(const vector_iterator& a, const vector_iterator& b) {
        return difference_type(a.i_) - difference_type(b.i_);
    }
    friend bool operator==(const vector_iterator& a, const vector_iterator& b) { return a.v_ == b.v_ && a.i_ == b.i_; }
    friend bool operator!=(const vector_iterator& a, const vector_iterator& b) { return !(a == b); }
    friend bool operator<(const vector_iterator& a, const vector_iterator& b) { return a.i_ < b.i_; }
    friend bool operator>(const vector_iterator& a, const vector_iterator& b) { return b < a; }
    friend bool operator<=(const vector_iterator& a, const vector_iterator& b) { return !(b < a); }
    friend bool operator>=(const vector_iterator& a, const vector_iterator& b) { return !(a < b); }

    V* owner() const { return v_; }
    std::size_t position() const { return i_; }

private:
    V* v_ = nullptr;
    std::size_t i_ = 0;
};

} // namespace detail

template <class T> class vector {
    static_assert(
        is_element_type_v<T>,
        "loom::vector<T>: T must be float, double, std::complex<float or double> or an integer type of 8 to 64 bits "
        "(store comparison results in an integer vector)");

public:
    LOOM_NOT_A_HOST_NUMBER // std::sin(x), double d = x: a compile-time error with a message (expr/domain.hpp)

        using value_type = T;
    // The standard container's other member types (the iterators' are further below).
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;

    // A reference to one element: reading or writing it flushes and moves one element.
    // Convenient, and slow: use whole-vector transfers for more than a few elements.
    class element_proxy {
    public:
        element_proxy(vector& v, std::size_t i) : v_(v), i_(i) {}
        operator T() const { return v_.get(i_); }
        element_proxy& operator=(T value) {
            v_.set(i_, value);
            return *this;
        }
        element_proxy& operator=(const element_proxy& other) { return *this = T(other); }
        // Exchanges the two elements' values (what std::sort and std::reverse do through iterators).
        friend void swap(element_proxy a, element_proxy b) {
            const T t = a;
            a = T(b);
            b = t;
        }

    private:
        vector& v_;
        std::size_t i_;
    };

    // An empty vector with no device; assign another vector to give it one.
    vector() = default;

    // n elements, zero-initialised (the fill is a statement, fused into what follows).
    vector(const context& ctx, std::size_t n) : vector(ctx, n, T(0)) {}

    vector(const context& ctx, std::size_t n, T value) : ctx_(ctx.impl()), size_(n) {
        adopt(make(ctx_, n));
        *this = value;
    }

    vector(const context& ctx, const std::vector<T>& host) : vector(ctx, host.begin(), host.end()) {}

    // n elements copied from host memory. (A template, so that `vector(ctx, n, 0)` stays a fill.)
    template <class P, std::enable_if_t<std::is_same_v<P, const T*> || std::is_same_v<P, T*>, int> = 0>
    vector(const context& ctx, std::size_t n, P host) : ctx_(ctx.impl()), size_(n) {
        adopt(make(ctx_, n));
        if (n && !host) throw error("loom: vector(ctx, n, host): the host pointer is null");
        if (n) detail::upload(*buf_, 0, n, host);
    }

    // The value of an expression: `loom::vector<float> y = 2 * x + sin(z);`. The context and the
    // length are those of the expression's first vector (or view); the assignment is a statement like any.
    template <class E, std::enable_if_t<expr::is_expression_v<E> || expr::is_view<E>::value, int> = 0>
    vector(const E& e) {
        shaped_like(e);
        assign(e);
    }
    // A temporary result that alone holds its memory (`loom::vector<float> y = loom::sum(A *
    // loom::as_row(x), loom::axis<1>);`): the new vector takes that memory where the context
    // allows it, as operator= below does, and copies it otherwise.
    template <class E, std::enable_if_t<expr::is_vector_temporary<E, T>::value, int> = 0> vector(E&& e) {
        shaped_like(e);
        const expr::counted_buffer& result = expr::proto::value(e).memory;
        if (!(result.sole_holder() && detail::adopt_memory(buf_, result.get()))) assign(e);
    }

    template <class It, class = typename std::iterator_traits<It>::iterator_category>
    vector(const context& ctx, It first, It last) : ctx_(ctx.impl()) {
        const std::vector<T> host(first, last);
        size_ = host.size();
        adopt(make(ctx_, size_));
        detail::upload(*buf_, 0, size_, host.data());
    }

    // A device copy: recorded as the statement `*this = other`, so it fuses too.
    vector(const vector& other) : ctx_(other.ctx_), size_(other.size_) {
        if (!other.buf_) return;
        adopt(make(ctx_, size_));
        assign(other);
    }

    // A moved-from vector is empty and keeps its context (so it can be resized or assigned again).
    vector(vector&& other) noexcept
        : ctx_(other.ctx_), buf_(std::move(other.buf_)), claim_(std::move(other.claim_)), size_(other.size_) {
        other.size_ = 0;
    }

    ~vector() {
        if (in_swap_log_ && ctx_) detail::forget_swapped(*ctx_, fields());
    }

    vector& operator=(const vector& other) {
        if (this == std::addressof(other)) return *this;
        if (!other.buf_) {
            release();
            return *this;
        }
        if (!buf_ || size_ != other.size_ || ctx_ != other.ctx_) {
            // Like std::vector: the target takes the source's length (and context).
            release();
            ctx_ = other.ctx_;
            size_ = other.size_;
            adopt(make(ctx_, size_));
        }
        return assign(other);
    }

    vector& operator=(vector&& other) noexcept {
        if (this != std::addressof(other)) {
            release();
            ctx_ = other.ctx_;
            buf_ = std::move(other.buf_);
            claim_ = std::move(other.claim_);
            size_ = other.size_;
            other.size_ = 0;
        }
        return *this;
    }

    // y = expression; y = other_vector_of_another_type; y = host_scalar;
    template <class E, std::enable_if_t<expr::is_expression_v<E>, int> = 0> vector& operator=(const E& e) {
        return assign(e);
    }
    // y = a temporary result that alone holds its memory (`y = loom::sum(A * loom::as_row(x),
    // loom::axis<1>);`): y takes that memory in place of a copy kernel where the context allows
    // it (detail::adopt_memory: nothing pending, no loop), else the copy is recorded as above.
    template <class E, std::enable_if_t<expr::is_vector_temporary<E, T>::value, int> = 0> vector& operator=(E&& e) {
        const expr::counted_buffer& result = expr::proto::value(e).memory;
        if (buf_ && result.sole_holder() && detail::adopt_memory(buf_, result.get())) return *this;
        return assign(e);
    }
    template <class U> vector& operator=(const vector<U>& other) { return assign(other); }
    template <class U> vector& operator=(const vector_view<U>& view) { return assign(view); }
    // Every element takes the device scalar's value (no host round trip).
    template <class U> vector& operator=(const scalar<U>& s) { return assign(s); }
    template <class S, std::enable_if_t<is_host_number_v<S>, int> = 0> vector& operator=(S value) {
        return assign(value);
    }

    // x += e, x -= e, ...: the statement x = x op e.
    LOOM_COMPOUND_ASSIGNMENTS(vector)

    // Throws what `*this = value` would throw, and records nothing (loom::tie checks every output
    // before it writes the first). A vector of this type as the value is never an error: it
    // gives this vector its length.
    template <class V> void check_assignment(const V& value) {
        if constexpr (!std::is_same_v<V, vector>) record(value, statement_use::check_only);
    }

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // The largest number of elements a vector's byte count can express.
    std::size_t max_size() const { return ~std::size_t(0) / sizeof(T); }

    std::vector<T> to_host() const {
        std::vector<T> host(size_);
        if (size_) detail::download(*buf_, 0, size_, host.data());
        return host;
    }

    element_proxy operator[](std::size_t i) { return element_proxy(*this, i); }
    T operator[](std::size_t i) const { return get(i); }
    // Like operator[], but an index out of range throws std::out_of_range (as std::vector::at does).
    element_proxy at(std::size_t i) {
        check_at(i);
        return element_proxy(*this, i);
    }
    T at(std::size_t i) const {
        check_at(i);
        return get(i);
    }

    // The first and last element (proxies like operator[]: each access moves one element).
    // Throws loom::error on an empty vector.
    element_proxy front() {
        check_nonempty("front");
        return (*this)[0];
    }
    T front() const {
        check_nonempty("front");
        return (*this)[0];
    }
    element_proxy back() {
        check_nonempty("back");
        return (*this)[size_ - 1];
    }
    T back() const {
        check_nonempty("back");
        return (*this)[size_ - 1];
    }

    // Like std::vector::assign: n copies of value, or the host range [first, last), in this
    // vector's context (a default-constructed vector has none: construct it with a context).
    void assign(std::size_t n, T value) {
        if (!ctx_)
            throw error("loom: assign(n, value) to a default-constructed loom::vector; construct it with a context");
        if (!buf_ || size_ != n)
            *this = vector(context(ctx_), n, value);
        else
            *this = value;
    }
    template <class It, class = typename std::iterator_traits<It>::iterator_category> void assign(It first, It last) {
        if (!ctx_)
            throw error("loom: assign(first, last) to a default-constructed loom::vector; construct it with a context");
        *this = vector(context(ctx_), first, last);
    }
    // One element more or less at the end, as std::vector's. Each call makes a new buffer and
    // copies the vector on the device (and push_back moves one element from the host), so a
    // loop of them is as slow as a loop of v[i]: build on the host and copy once instead.
    void push_back(T value) {
        resize(size_ + 1);
        set(size_ - 1, value);
    }
    void pop_back() {
        check_nonempty("pop_back");
        resize(size_ - 1);
    }
    // No elements; the context stays.
    void clear() {
        if (ctx_) *this = vector(context(ctx_), 0);
    }

    // Elements start, start + stride, ... (count of them) as a view that reads and assigns inside
    // expressions (loom/view.hpp); the bounds are checked here.
    vector_view<T> slice(std::size_t start, std::size_t count, std::ptrdiff_t stride = 1);
    // Like std::vector::resize: the first min(n, size()) elements are kept, new ones are zero.
    // A new buffer: statements recorded earlier keep the old one. A vector with no elements
    // (built with size 0, cleared, moved from) grows in its context; one that never had a
    // context (default-constructed) needs resize(ctx, n).
    void resize(std::size_t n);
    // Gives a vector with no context one (and otherwise moves it to ctx), then resizes to n;
    // elements kept as resize(n) keeps them where the context stays the same, else zero.
    void resize(const context& ctx, std::size_t n);
    // This vector becomes a copy of other: its context, length and values (converted to T), as
    // VexCL's resize(v) does.
    template <class U> void resize(const vector<U>& other);
    // This vector takes host's length and values, in its context.
    void resize(const std::vector<T>& host);

    using reference = element_proxy;
    using const_reference = T;
    using iterator = detail::vector_iterator<vector>;
    using const_iterator = detail::vector_iterator<const vector>;
    using reverse_iterator = std::reverse_iterator<iterator>;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    iterator begin() { return {this, 0}; }
    iterator end() { return {this, size_}; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    reverse_iterator rbegin() { return reverse_iterator(end()); }
    reverse_iterator rend() { return reverse_iterator(begin()); }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

    // Exchanges the two vectors' device buffers: no copy, no flush (statements already
    // recorded keep the buffers they named). The ping-pong step of iterative schemes;
    // inside loom::loop_while it is logged, so that a loop ending on the device leaves
    // the vectors as its last iteration did.
    void swap(vector& other) noexcept {
        exchange(*this, other);
        detail::context_impl* ctx = ctx_ ? ctx_.get() : other.ctx_.get();
        if (ctx && detail::note_swap(*ctx, fields(), other.fields())) in_swap_log_ = other.in_swap_log_ = true;
    }

    // Interop (loom/interop.hpp, docs/interop.md). The device memory as the backend's handle: a
    // cl_mem or a CUdeviceptr (`x.native_handle().opencl<cl_mem>()`). Runs the pending statements
    // first (enqueued on the context's queue, not waited for) and allocates the memory if the
    // vector has none yet.
    backend_handle native_handle() const {
        if (!buf_)
            throw error("loom: native_handle() of an empty loom::vector (default-constructed or moved from): it "
                        "has no device memory; construct it with a context and a size first");
        return detail::native_handle_of(buf_);
    }

    // A vector of n elements over device memory the caller owns: no copy, and Loom never frees
    // it. The memory must outlive every vector naming it and the statements that use it
    // (docs/interop.md). Throws loom::error when it is another backend's, another context's, or
    // smaller than n elements (as far as the backend can tell).
    static vector wrap(const context& ctx, void* cl_mem, std::size_t n) {
        return over(ctx, backend_kind::opencl, std::uint64_t(reinterpret_cast<std::uintptr_t>(cl_mem)), n);
    }
    static vector wrap(const context& ctx, std::uint64_t cu_deviceptr, std::size_t n) {
        return over(ctx, backend_kind::cuda, cu_deviceptr, n);
    }
    // What native_handle() returned, of either backend.
    static vector wrap(const context& ctx, const backend_handle& memory, std::size_t n) {
        return over(ctx, memory.backend(), memory.value(), n);
    }

    // For the runtime: the buffer this vector names now.
    const detail::buffer_ptr& buffer() const { return buf_; }
    // For expressions over it: the vector's claim on that buffer (expr/vector_ref.hpp), which
    // they share, so the buffer keeps its values after the vector is gone.
    const expr::shared_claim& claim() const { return claim_; }

private:
    template <class U> friend class matrix; // loom::reshape and loom::flatten (loom/matrix.hpp)
    template <class U> friend class array3; // and of 3-D arrays (loom/array3.hpp)
    // A second vector naming this one's buffer (no copy): statements through either are
    // ordered by the buffer they share, as fusion orders any two accesses to one buffer.
    vector share() const {
        vector v;
        v.ctx_ = ctx_;
        v.adopt(buf_);
        v.size_ = size_;
        return v;
    }

    static void exchange(vector& a, vector& b) noexcept { detail::exchange(a.fields(), b.fields()); }
    detail::vector_fields fields() noexcept { return {&ctx_, &buf_, &claim_, &size_}; }

    static vector over(const context& ctx, backend_kind kind, std::uint64_t handle, std::size_t n) {
        vector v;
        v.adopt(detail::wrap_buffer(ctx.impl(), kind, handle, n, dtype_v<T>));
        v.ctx_ = ctx.impl();
        v.size_ = n;
        return v;
    }

    static detail::buffer_ptr make(const detail::context_ptr& ctx, std::size_t n) {
        return detail::new_buffer(ctx, n, dtype_v<T>);
    }
    // A new buffer in the context of e's first vector (or view), with its length.
    template <class E> void shaped_like(const E& e) {
        const expr::first_operand_t first = expr::first_operand(e);
        if (!first.buffer)
            throw error("loom: a vector built from an expression takes its context and length from the expression's "
                        "vectors, and this one names none; construct it with (context, size) and assign instead");
        ctx_ = detail::shared_context_of(**first.buffer);
        size_ = first.length;
        adopt(make(ctx_, size_));
    }
    // This vector names b now: its claim counts b as a vector's (fused kernels must store it).
    void adopt(detail::buffer_ptr b) {
        claim_ = expr::claim(b);
        buf_ = std::move(b);
    }

    void release() {
        claim_.reset();
        buf_.reset();
        size_ = 0;
    }

    template <class E> vector& assign(const E& e) {
        record(e, statement_use::commit);
        return *this;
    }
    enum class statement_use { commit, check_only };
    template <class E> void record(const E& e, statement_use use) {
        if (!buf_)
            throw error("loom: assignment to an empty loom::vector; construct it with a context and a size first");
        // Lowered once per (expression type, element type): later statements reuse the shape.
        const detail::shape* const shape = expr::lowered_once([&] { return expr::assignment_shape<T>(e); }, e);
        detail::statement_recorder recorder(*detail::context_of(*buf_));
        expr::bind(recorder, e);
        if (use == statement_use::commit)
            recorder.commit_assignment(shape, buf_);
        else
            recorder.check_statement(shape, size_);
    }

    void check_at(std::size_t i) const {
        if (i >= size_)
            throw std::out_of_range("loom::vector::at: element " + std::to_string(i) +
                                    " is out of range for a vector of " + std::to_string(size_) + " elements");
    }
    // loom::error on an empty vector (what = the member called).
    void check_nonempty(const char* what) const {
        if (size_ == 0) throw error(std::string("loom::vector::") + what + ": the vector is empty");
    }
    void check_index(std::size_t i) const {
        if (i >= size_)
            throw error("loom: element " + std::to_string(i) + " is out of range for a vector of " +
                        std::to_string(size_) + " elements");
    }
    T get(std::size_t i) const {
        check_index(i);
        T value;
        detail::download(*buf_, i, 1, &value);
        return value;
    }
    void set(std::size_t i, T value) {
        check_index(i);
        detail::upload(*buf_, i, 1, &value);
    }

    detail::context_ptr ctx_;
    detail::buffer_ptr buf_;
    expr::shared_claim claim_; // of buf_, shared with the expressions over this vector
    std::size_t size_ = 0;
    // Swapped inside a loom::loop_while body: the loop's swap log may name this object, which
    // must leave it when the object dies. Stays with the object (exchange does not move it).
    bool in_swap_log_ = false;
};

// loom::swap(a, b) and an unqualified swap(a, b) both come here (see vector::swap).
template <class T> void swap(vector<T>& a, vector<T>& b) noexcept { a.swap(b); }

// Device to host: host takes the vector's length.
template <class T> void copy(const vector<T>& v, std::vector<T>& host) {
    host.resize(v.size());
    if (!host.empty()) detail::download(*v.buffer(), 0, host.size(), host.data());
}

// Host to device: lengths must match.
template <class T> void copy(const std::vector<T>& host, vector<T>& v) {
    if (host.size() != v.size())
        throw length_error("loom: length mismatch in loom::copy: the host vector has " + std::to_string(host.size()) +
                           " elements and the device vector " + std::to_string(v.size()));
    if (!host.empty()) detail::upload(*v.buffer(), 0, host.size(), host.data());
}

namespace detail {
template <class V> void check_range(const vector_iterator<V>& first, const vector_iterator<V>& last) {
    if (first.owner() != last.owner() || last < first || last.position() > (first.owner() ? first.owner()->size() : 0))
        throw error("loom::copy: [first, last) is not a range of one vector");
}
} // namespace detail

// [first, last) of a device vector to a host output iterator: one transfer.
template <class V, class OutputIt>
OutputIt copy(detail::vector_iterator<V> first, detail::vector_iterator<V> last, OutputIt out) {
    detail::check_range(first, last);
    using T = typename detail::vector_iterator<V>::value_type;
    const std::size_t n = std::size_t(last - first);
    if (n == 0) return out;
    if constexpr (std::is_pointer_v<OutputIt> && std::is_same_v<std::remove_pointer_t<OutputIt>, T>) {
        detail::download(*first.owner()->buffer(), first.position(), n, out);
        return out + n;
    } else {
        std::vector<T> host(n);
        detail::download(*first.owner()->buffer(), first.position(), n, host.data());
        return std::copy(host.begin(), host.end(), out);
    }
}

// [first, last) of host values into a device vector from `out`: one transfer.
template <class InputIt, class T>
detail::vector_iterator<vector<T>> copy(InputIt first, InputIt last, detail::vector_iterator<vector<T>> out) {
    const std::vector<T> host(first, last);
    if (host.empty()) return out;
    if (!out.owner() || out.position() + host.size() > out.owner()->size())
        throw length_error("loom::copy: " + std::to_string(host.size()) + " elements do not fit from position " +
                           std::to_string(out.position()) + " of a vector of " +
                           std::to_string(out.owner() ? out.owner()->size() : 0) + " elements");
    detail::upload(*out.owner()->buffer(), out.position(), host.size(), host.data());
    return out + std::ptrdiff_t(host.size());
}

} // namespace loom

#include "loom/view.hpp"
