// loom-info: the devices Loom can run on, one line each (as clinfo -l and sycl-ls print
// them), with `*` at the one a default loom::context opens; --json for programs. Exit
// status: 0 ok, 1 no device found, 2 usage error. docs/backends.md.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "human_bytes.hpp"
#include "loom/devices.hpp"
#include "loom/version.hpp"

namespace {

enum exit_status : int { ok = 0, none_found = 1, usage = 2 };

using loom::tools::human_bytes;

std::string id_of(const loom::device_description& d) { return d.backend + ":" + std::to_string(d.index); }

std::string padded(std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
}

void print_lines(const std::vector<loom::device_description>& all, bool verbose) {
    std::size_t id_width = 0, name_width = 0;
    for (const loom::device_description& d : all) {
        id_width = std::max(id_width, id_of(d).size());
        name_width = std::max(name_width, d.name.size());
    }
    for (const loom::device_description& d : all) {
        std::cout << (d.is_default ? "* " : "  ") << padded(id_of(d), id_width) << "  " << padded(d.name, name_width)
                  << "  " << padded(human_bytes(d.global_memory_bytes), 10) << "  " << d.compute_units
                  << " compute units  " << (d.fp64 ? "fp64" : "no fp64") << '\n';
        if (!verbose) continue;
        std::cout << "      vendor:           " << d.vendor << '\n'
                  << "      platform:         " << d.platform << '\n'
                  << "      driver:           " << d.driver_version << '\n'
                  << "      type:             " << (d.is_gpu ? "GPU" : "not a GPU") << '\n'
                  << "      largest vector:   " << human_bytes(d.max_allocation_bytes) << '\n'
                  << "      work-group size:  " << d.max_work_group_size << '\n';
    }
}

nlohmann::json as_json(const std::vector<loom::device_description>& all) {
    nlohmann::json list = nlohmann::json::array();
    for (const loom::device_description& d : all)
        list.push_back({{"backend", d.backend},
                        {"index", d.index},
                        {"name", d.name},
                        {"vendor", d.vendor},
                        {"platform", d.platform},
                        {"driver_version", d.driver_version},
                        {"global_memory_bytes", d.global_memory_bytes},
                        {"max_allocation_bytes", d.max_allocation_bytes},
                        {"compute_units", d.compute_units},
                        {"max_work_group_size", d.max_work_group_size},
                        {"fp64", d.fp64},
                        {"is_gpu", d.is_gpu},
                        {"is_default", d.is_default}});
    return {{"loom_version", loom::version()}, {"devices", list}};
}

// Why no device is marked, when one is not: the environment chose none of them.
void explain_missing_default(const std::vector<loom::device_description>& all) {
    for (const loom::device_description& d : all)
        if (d.is_default) return;
    std::string chosen;
    for (const char* variable : {"LOOM_BACKEND", "LOOM_DEVICE"})
        if (const char* v = std::getenv(variable); v && *v)
            chosen += std::string(chosen.empty() ? "" : " ") + variable + "=" + v;
    std::cerr << "loom-info: " << (chosen.empty() ? std::string("the environment") : chosen)
              << " chooses none of these devices; a default loom::context would throw\n";
}

int run(int argc, char** argv) {
    CLI::App app{"List the devices Loom can run on; * marks the one a default loom::context opens\n"
                 "(LOOM_BACKEND and LOOM_DEVICE choose it). Exit status: 0 ok, 1 no device found, 2 usage error.",
                 "loom-info"};
    bool json = false, verbose = false;
    app.add_flag("--json", json, "Print the devices as JSON");
    app.add_flag("-v,--verbose", verbose, "Print every property of each device");
    app.set_version_flag("--version", std::string(loom::version()), "Print Loom's version");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? ok : usage; // --help and --version are not errors
    }
    const std::vector<loom::device_description> all = loom::devices();
    if (json) {
        std::cout << as_json(all).dump(2) << '\n';
    } else if (all.empty()) {
        std::cerr << "loom-info: no device found. Install an OpenCL driver (on Debian or Ubuntu, pocl-opencl-icd "
                     "provides a CPU device) or the NVIDIA driver\n";
    } else {
        print_lines(all, verbose);
    }
    if (!all.empty()) explain_missing_default(all);
    return all.empty() ? none_found : ok;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) { // out of memory, a driver failing while listing
        std::cerr << "loom-info: " << e.what() << '\n';
        return none_found;
    }
}
