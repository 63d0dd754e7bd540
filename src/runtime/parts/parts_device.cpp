// The stand-in device of a context over several devices; see parts_device.hpp.
#include "runtime/parts/parts_device.hpp"

#include <string>

#include "loom/error.hpp"

namespace loom::detail {

std::string needs_one_device(const char* what, std::size_t parts) {
    return std::string("loom: ") + (what ? what : "this operation") + " runs on one device, and this context has " +
           std::to_string(parts) +
           " (docs/multi-device.md lists what runs across devices); run it on a context of one device and copy the "
           "data through the host";
}

namespace {

class parts_device final : public backend::device {
public:
    parts_device(backend::device_info info, const backend::device& first, std::size_t parts)
        : info_(std::move(info)), dialect_(first.dialect()), options_(first.compile_options()), parts_(parts) {}

    const backend::device_info& info() const override { return info_; }
    const codegen::dialect& dialect() const override { return dialect_; }
    std::string compile_options() const override { return options_; }
    void write(backend::memory&, std::size_t, const void*, std::size_t) override { refuse(); }
    void read(const backend::memory&, std::size_t, void*, std::size_t) override { refuse(); }
    void copy(const backend::memory&, backend::memory&, std::size_t) override { refuse(); }
    backend::build_result build(const std::string&, const std::string&) override { refuse(); }
    std::unique_ptr<backend::kernel> load(const std::vector<unsigned char>&, const std::string&,
                                          const std::string&) override {
        refuse();
    }
    void launch(backend::kernel&, const backend::kernel_arg*, std::size_t, const backend::geometry&) override {
        refuse();
    }
    void finish() override {} // the parts finish their own work
    backend::kernel_timing timing() override { return {}; }
    backend::native_handles native() const override { refuse(); }
    std::uint64_t native_memory(const backend::memory&) const override { refuse(); }
    std::unique_ptr<backend::memory> wrap_memory(std::uint64_t, std::size_t) override { refuse(); }

private:
    std::unique_ptr<backend::memory> allocate_memory(std::size_t) override { refuse(); }
    backend::memory_ledger& ledger() const override { return ledger_; }
    [[noreturn]] void refuse() const { throw error(needs_one_device(nullptr, parts_)); }

    backend::device_info info_;
    const codegen::dialect& dialect_;
    std::string options_;
    std::size_t parts_;
    mutable backend::memory_ledger ledger_;
};

} // namespace

std::unique_ptr<backend::device> make_parts_device(backend::device_info info, const backend::device& first,
                                                   std::size_t parts) {
    return std::make_unique<parts_device>(std::move(info), first, parts);
}

} // namespace loom::detail
