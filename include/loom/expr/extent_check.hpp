// The shape check of a 2-D or 3-D statement (loom/matrix.hpp, loom/array3.hpp, loom/strided.hpp,
// loom/matmul.hpp): the extents its operands give, checked against each other and against the
// target's as the expression is walked, before anything is recorded. One check for both ranks,
// so a rule and its message are written once; a disagreement is a loom::length_error naming both
// shapes, and the messages are formatted only when one is thrown.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "loom/error.hpp"
#include "loom/expr/domain.hpp"
#include "loom/expr/operands.hpp"

namespace loom {
namespace expr {

// The extents of a statement over Rank axes (2: a matrix's rows and columns; 3: a 3-D array's),
// from the operands met: a term with every extent (a matrix, block, transpose or product in 2-D,
// a loom::array3 in 3-D), a vector laid along one axis (loom::as_row, loom::as_column,
// loom::along<D>), and 1-D operands (a vector, a view, another), whose length must be the
// extents' product. In 2-D a broadcast gives its axis's extent (N-Body's
// `as_row(x) - as_column(x)` names no matrix); a 3-D expression takes its extents from its arrays,
// and its loom::along vectors are checked against them.
template <unsigned Rank> class basic_extent_check {
    static_assert(Rank == 2 || Rank == 3, "loom: statements are 2-D (matrices) or 3-D (loom::array3)");

public:
    using extents_type = std::array<std::uint64_t, Rank>;
    static constexpr std::uint64_t unknown = ~std::uint64_t(0);

    explicit basic_extent_check(const char* statement) : statement_(statement) {}

    // The statement's target, and a term of the expression: every extent.
    void target(const extents_type& d) { give_all({source::target, d}); }
    void term(const extents_type& d) { give_all({source::term, d}); }
    // A vector of n elements laid along `axis`, repeated along the others.
    void along(unsigned axis, std::uint64_t n) {
        if constexpr (Rank == 2)
            if (axis == 2)
                throw error("loom: loom::along<2>(x) lays x along the third axis of a 3-D expression, and this "
                            "expression is 2-D; add a loom::array3 or use loom::along<0> or loom::along<1>");
        source s{source::along, unknown_extents()};
        s.dims[axis] = n;
        s.axis = axis;
        s.length = n;
        if constexpr (broadcasts_give_extents)
            give(axis, s);
        else
            same_length(along_[axis], s);
    }
    // A 1-D operand of n elements: a vector, a view, or another (a gather, a stencil read).
    enum class operand { vector, view, other };
    void elements(std::uint64_t n, operand what) {
        source s{what == operand::vector ? source::flat_vector
                 : what == operand::view ? source::flat_view
                                         : source::flat_other,
                 {}};
        s.length = n;
        same_length(flat_, s);
    }
    // A term of a 2-D statement (a matrix, a transpose, a block, a strided view, a product) in a
    // 3-D one.
    [[noreturn]] void two_dimensional() const {
        throw error(std::string("loom: ") + statement_ +
                    " is 3-D, and its expression holds a 2-D operand (a loom::matrix, a transpose or a "
                    "block); use a loom::array3, or a vector of its elements");
    }

    // Throws unless every extent is known, their product fits in 64 bits, each vector laid along
    // an axis has that axis's extent and every 1-D operand the product of elements.
    void finish() const {
        for (unsigned axis = 0; axis < Rank; ++axis)
            if (given_[axis].kind == source::none) missing();
        const extents_type d = extents();
        std::uint64_t n = 1;
        for (unsigned axis = 0; axis < Rank; ++axis) {
            if (n != 0 && d[axis] > ~std::uint64_t(0) / n)
                throw error(std::string("loom: ") + statement_ + ": " + describe_extents(d) +
                            " elements do not fit in 64 bits");
            n *= d[axis];
        }
        for (unsigned axis = 0; axis < Rank; ++axis)
            if (along_[axis].kind != source::none && along_[axis].length != d[axis])
                throw length_error(std::string("loom: shape mismatch in ") + statement_ + ": " +
                                   describe(along_[axis]) + " in an expression over a " + describe_extents(d) + " " +
                                   shape_noun() + " (axis " + std::to_string(axis) + " has " + std::to_string(d[axis]) +
                                   ")");
        if (flat_.kind != source::none && flat_.length != n)
            throw length_error(std::string("loom: shape mismatch in ") + statement_ + ": " + describe(flat_) +
                               " in an expression over " + describe_extents(d) + " (" + std::to_string(n) +
                               " elements, from " + describe(given_[0]) + "); " + flat_hint());
    }
    // After finish(): the extent along `axis`, and all of them.
    std::uint64_t extent(unsigned axis) const { return extent_of(given_[axis], axis); }
    extents_type extents() const {
        extents_type d{};
        for (unsigned axis = 0; axis < Rank; ++axis) d[axis] = extent(axis);
        return d;
    }

    // "2 x 3 x 4"; an unknown extent is "?".
    static std::string describe_extents(const extents_type& d) {
        std::string s;
        for (unsigned axis = 0; axis < Rank; ++axis)
            s += (axis ? " x " : "") + (d[axis] == unknown ? std::string("?") : std::to_string(d[axis]));
        return s;
    }

private:
    static constexpr bool broadcasts_give_extents = Rank == 2;

    struct source {
        enum kind_t : std::uint8_t { none, target, term, along, flat_vector, flat_view, flat_other };
        kind_t kind = none;
        extents_type dims{};      // target, term: every extent; along: its axis's, the others unknown
        unsigned axis = 0;        // along: the axis
        std::uint64_t length = 0; // along, 1-D operands: the vector's elements
    };
    static extents_type unknown_extents() {
        extents_type d;
        d.fill(unknown);
        return d;
    }
    static std::uint64_t extent_of(const source& s, unsigned axis) {
        return s.kind == source::along ? s.length : s.dims[axis];
    }

    // The words a message gives the shapes and axes of a statement of this rank.
    static const char* shape_noun() { return Rank == 2 ? "matrix" : "array"; }
    static const char* expressions_noun() { return Rank == 2 ? "matrix" : "3-D"; }
    static std::string axis_words(unsigned axis) {
        if constexpr (Rank == 2) return axis == 0 ? "rows" : "columns";
        return "extents along axis " + std::to_string(axis);
    }
    static std::string broadcast_name(unsigned axis) {
        if constexpr (Rank == 2) return axis == 0 ? "loom::as_column" : "loom::as_row";
        return "loom::along<" + std::to_string(axis) + ">";
    }
    static const char* flat_hint() {
        return Rank == 2 ? "broadcast a vector along the rows or columns with loom::as_row or loom::as_column"
                         : "lay a vector along one axis with loom::along<0>, loom::along<1> or loom::along<2>";
    }
    [[noreturn]] void missing() const {
        std::string names;
        if constexpr (Rank == 2) {
            const bool rows = given_[0].kind == source::none, cols = given_[1].kind == source::none;
            names = "rows and columns of its expression, and it names ";
            names += rows && cols ? "neither (use a loom::matrix, or broadcast vectors with loom::as_row and "
                                    "loom::as_column)"
                     : rows       ? "no rows (add a loom::matrix or a loom::as_column)"
                                  : "no columns (add a loom::matrix or a loom::as_row)";
        } else {
            names = "extents of its expression, and it names none: add a loom::array3";
        }
        throw error(std::string("loom: ") + statement_ + " needs the " + names);
    }

    static std::string describe(const source& s) {
        const std::string n = std::to_string(s.length);
        switch (s.kind) {
        case source::target: return "the target, a " + describe_extents(s.dims) + " " + shape_noun();
        case source::term: return "a " + describe_extents(s.dims) + " " + shape_noun();
        case source::along: // one that gives an extent shows the shape it gives
            return broadcast_name(s.axis) + " of a vector of " + n + " elements" +
                   (broadcasts_give_extents ? " (" + describe_extents(s.dims) + ")" : "");
        case source::flat_vector: return "a vector of " + n + " elements";
        case source::flat_view: return "a view of " + n + " elements";
        case source::flat_other: return "an operand of " + n + " elements";
        case source::none: break;
        }
        return "?";
    }
    [[noreturn]] void mismatch(const source& a, const source& b, const std::string& what) const {
        throw length_error(std::string("loom: shape mismatch in ") + statement_ + ": " + describe(a) + " and " +
                           describe(b) + " differ in their " + what + "; element-wise " + expressions_noun() +
                           " expressions need equal shapes");
    }
    // The first operand to give an extent sets it; each later one must agree.
    void give(unsigned axis, const source& s) {
        if (given_[axis].kind == source::none)
            given_[axis] = s;
        else if (extent_of(given_[axis], axis) != extent_of(s, axis))
            mismatch(given_[axis], s, axis_words(axis));
    }
    void give_all(const source& s) {
        for (unsigned axis = 0; axis < Rank; ++axis) give(axis, s);
    }
    void same_length(source& first, const source& s) {
        if (first.kind == source::none)
            first = s;
        else if (first.length != s.length)
            mismatch(first, s, "lengths");
    }

    const char* statement_;
    source given_[Rank]; // per axis, the first operand that gave its extent
    source along_[Rank]; // 3-D: per axis, the first vector laid along it (checked in finish())
    source flat_;        // the first 1-D operand
};

using extent_check = basic_extent_check<2>;  // a matrix statement's
using extent_check3 = basic_extent_check<3>; // a loom::array3 statement's

// A terminal kind with extents in a statement checked by Check offers
// `void extents(Check&) const` (a template for both ranks where it means the same in each: a
// vector's length, a broadcast's axis).
template <class T, class Check, class = void> struct has_extents : std::false_type {};
template <class T, class Check>
struct has_extents<T, Check, std::void_t<decltype(std::declval<const T&>().extents(std::declval<Check&>()))>>
    : std::true_type {};

template <class E, unsigned Rank> void collect_extents(const E& e, basic_extent_check<Rank>& c);

template <class E, unsigned Rank, std::size_t... I>
void collect_children_extents(const E& e, basic_extent_check<Rank>& c, std::index_sequence<I...>) {
    (collect_extents(proto::child_c<I>(e), c), ...);
}

// Gives c the extents of every operand of e.
template <class E, unsigned Rank> void collect_extents(const E& e, basic_extent_check<Rank>& c) {
    if constexpr (!proto::is_expr<E>::value) {
        if constexpr (has_extents<E, basic_extent_check<Rank>>::value) {
            e.extents(c);
        } else if constexpr (Rank == 3 && has_extents<E, extent_check>::value) {
            c.two_dimensional();
        } else if constexpr (is_vector<E>::value) {
            c.elements(e.size(), basic_extent_check<Rank>::operand::vector);
        } else if constexpr (is_view<E>::value) {
            c.elements(e.size(), basic_extent_check<Rank>::operand::view);
        } else if constexpr (has_operand<E>::value) { // a gather or stencil read: its statement length
            const first_operand_t o = e.operand();
            if (o.buffer) c.elements(o.length, basic_extent_check<Rank>::operand::other);
        }
    } else if constexpr (std::is_same_v<typename proto::tag_of<E>::type, proto::tag::terminal>) {
        collect_extents(proto::value(e), c);
    } else {
        collect_children_extents(e, c, std::make_index_sequence<proto::arity_of<E>::value>{});
    }
}

} // namespace expr
} // namespace loom
