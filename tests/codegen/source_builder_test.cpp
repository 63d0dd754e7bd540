// The source builder every emitter writes through: depth from the blocks it opens and
// closes, a dialect's multi-line text at the depth it is written at, and declarations and
// buffer parameters in each dialect's spelling.
#include "codegen_support.hpp"

#include "codegen/source_builder.hpp"

using loom::dtype;
using loom::codegen::buffer_parameter;
using loom::codegen::cuda_dialect;
using loom::codegen::opencl_dialect;
using loom::codegen::source_builder;

TEST_CASE("blocks indent what they hold by four spaces a level, an else branch at the block's depth") {
    source_builder b(opencl_dialect());
    b.open("void f()");
    b.open_for("int k = 0", "k < 4", "++k");
    b.open("if (k == 1)");
    b.line("g();");
    b.next("else");
    b.open();
    b.line("h();");
    b.close();
    b.close();
    b.close(" // k");
    b.close();
    CHECK(b.text() == "void f() {\n"
                      "    for (int k = 0; k < 4; ++k) {\n"
                      "        if (k == 1) {\n"
                      "            g();\n"
                      "        } else {\n"
                      "            {\n"
                      "                h();\n"
                      "            }\n"
                      "        }\n"
                      "    } // k\n"
                      "}\n");
}

TEST_CASE("several lines keep their own indentation below the depth they are written at") {
    source_builder b(cuda_dialect());
    b.open("void f()");
    b.lines("for (;;)\nfor (;;) {\n    x();");
    b.enter(); // the block the text opened
    b.line("y();");
    b.close();
    b.append("// as it is\n");
    CHECK(b.text() == "void f() {\n"
                      "    for (;;)\n"
                      "    for (;;) {\n"
                      "        x();\n"
                      "        y();\n"
                      "    }\n"
                      "// as it is\n");
}

TEST_CASE("declarations and buffer parameters take each dialect's spelling") {
    source_builder cl(opencl_dialect()), cu(cuda_dialect());
    for (source_builder* b : {&cl, &cu}) {
        b->declare(dtype::u64, "i", "0");
        b->declare_const(dtype::i64, "w", "p3");
        b->declare("unsigned int", "lid", "0u");
    }
    CHECK(cl.text() == "ulong i = 0;\nconst long w = p3;\nunsigned int lid = 0u;\n");
    CHECK(cu.text() == "unsigned long long i = 0;\nconst long long w = p3;\nunsigned int lid = 0u;\n");
    CHECK(buffer_parameter(opencl_dialect(), "float", false, true) + "p0" == "__global const float *restrict p0");
    CHECK(buffer_parameter(opencl_dialect(), "int", true, false) + "g" == "__global int *g");
    CHECK(buffer_parameter(cuda_dialect(), "double", false, true) + "p0" == "const double *__restrict__ p0");
    CHECK(buffer_parameter(cuda_dialect(), "float", true, false) + "out" == "float *out");
}
