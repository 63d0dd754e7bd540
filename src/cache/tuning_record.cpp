// Reading and writing tuning.json (see tuning_record.hpp).
#include "cache/tuning_record.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace loom::cache {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr int tuning_format = 1;
constexpr std::uintmax_t tuning_size_limit = 1 << 16;
} // namespace

std::optional<tuning_record> read_tuning(const fs::path& entry_dir, const std::string& hex) {
    std::error_code ec;
    const fs::path path = entry_dir / tuning_file_name;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec || size > tuning_size_limit) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const json j = json::parse(text.str(), nullptr, false);
    if (!j.is_object()) return std::nullopt;
    try {
        if (j.at("format").get<int>() != tuning_format || j.at("key").get<std::string>() != hex) return std::nullopt;
        tuning_record r;
        r.form = j.at("form").get<std::string>();
        r.choice = j.at("choice").get<std::uint32_t>();
        r.elements = j.at("elements").get<std::uint64_t>();
        for (const json& m : j.at("measured"))
            r.measured.emplace_back(m.at(0).get<std::uint32_t>(), m.at(1).get<double>());
        if (r.form != "chunked" && r.form != "grid_stride" && r.form != "grid_rows") return std::nullopt;
        if (r.choice == 0 && r.form != "grid_rows") return std::nullopt; // grid_rows: 0 is the default shape
        return r;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

std::string write_tuning(const fs::path& entry_dir, const std::string& hex, const tuning_record& r) {
    static std::atomic<unsigned long> counter{0};
    json measured = json::array();
    for (const auto& [choice, us] : r.measured) measured.push_back({choice, us});
    const nlohmann::ordered_json j = {{"format", tuning_format}, {"key", hex},
                                      {"form", r.form},          {"choice", r.choice},
                                      {"elements", r.elements},  {"measured", measured}};
    const std::string text = j.dump(2) + "\n";
    std::error_code ec;
    if (!fs::is_directory(entry_dir, ec)) return entry_dir.string() + " is not an entry directory";
    const fs::path staged = entry_dir / (".tuning-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::FILE* f = std::fopen(staged.c_str(), "wb");
    if (!f) return staged.string() + ": cannot be created";
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const bool closed = std::fclose(f) == 0;
    if (!written || !closed) {
        fs::remove(staged, ec);
        return staged.string() + ": cannot be written";
    }
    fs::rename(staged, entry_dir / tuning_file_name, ec);
    if (ec) {
        fs::remove(staged, ec);
        return "cannot rename " + staged.string() + " into place";
    }
    return {};
}

std::string describe(const tuning_record& r) {
    // A grid_rows choice is a group's shape, columns | rows << 16 (launch::grid_shape); 0 is the
    // default shape.
    const bool shapes = r.form == "grid_rows";
    auto choice_text = [&](std::uint32_t c) {
        if (!shapes) return std::to_string(c);
        if (c == 0) return std::string("default");
        return std::to_string(c & 0xFFFFu) + "x" + std::to_string(c >> 16);
    };
    std::string s = r.form + ", ";
    if (shapes)
        s += "groups of " + std::string(r.choice == 0 ? "the default shape" : choice_text(r.choice) + " work-items");
    else
        s += choice_text(r.choice) + (r.form == "chunked" ? " work-items per compute unit" : " work-items per group");
    s += " (measured over " + std::to_string(r.elements) + " elements:";
    for (const auto& [choice, us] : r.measured) {
        char text[48];
        std::snprintf(text, sizeof text, " %.1f us", us);
        s += " " + choice_text(choice) + text;
        if (&choice != &r.measured.back().first) s += ",";
    }
    return s + ")";
}

} // namespace loom::cache
