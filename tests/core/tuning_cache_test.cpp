// Host tests of the tuning cache (cuprim/core/tuning.hpp): the file's JSON both ways, its errors and their offsets,
// merging into a file, where the file is, the choice of an entry, and lookup on a host without a CUDA device (a
// host with one runs the same checks, plus one that finds its own section).
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/tuning.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace tuning = cuprim::tuning;
namespace fs = std::filesystem;

// A policy with a nested policy, described as the library's policies are.
struct inner_policy {
  static constexpr const char* name = "inner_policy";
  int scan_warps = 8;
  int stages = 3;
  template <class F>
  constexpr void fields(F&& f) const {
    f("scan_warps", scan_warps);
    f("stages", stages);
  }
};

struct outer_policy {
  static constexpr const char* name = "outer_policy";
  int threads = 256;
  inner_policy pipeline{};
  unsigned items = 4;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("pipeline", pipeline);
    f("items", items);
  }
};

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + part.size())) ++n;
  return n;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << p;
}

tuning::cache_key key_of(std::string gpu, int sms = 132, int cc = 90, int driver = 13000, int runtime = 13000,
                         std::string version = "0.1.0") {
  return tuning::cache_key{std::move(gpu), sms, cc, driver, runtime, std::move(version)};
}

tuning::cache_entry entry_of(std::string op, std::string types, std::string layout, int alignment,
                             std::int64_t size_min, std::int64_t size_max, std::string policy_name,
                             tuning::policy_fields policy = {}, double time_ms = 1.0) {
  tuning::cache_entry e;
  e.op = std::move(op);
  e.types = std::move(types);
  e.layout = std::move(layout);
  e.alignment = alignment;
  e.size_min = size_min;
  e.size_max = size_max;
  e.policy_name = std::move(policy_name);
  e.policy = std::move(policy);
  e.time_ms = time_ms;
  return e;
}

void expect_same_entry(const tuning::cache_entry& a, const tuning::cache_entry& b) {
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.types, b.types);
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_EQ(a.alignment, b.alignment);
  EXPECT_EQ(a.size_min, b.size_min);
  EXPECT_EQ(a.size_max, b.size_max);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.policy_name, b.policy_name);
  EXPECT_EQ(a.policy, b.policy);
  // Exact: the text must carry every bit of a double.
  EXPECT_EQ(a.time_ms, b.time_ms);
  EXPECT_EQ(a.runner_up_ms, b.runner_up_ms);
  EXPECT_EQ(a.default_ms, b.default_ms);
  EXPECT_EQ(a.runner_up_name, b.runner_up_name);
  EXPECT_EQ(a.runner_up, b.runner_up);
}

/// A GEMM entry as tuners write it: the bucket the whole size axis, the shape (m, n, k) deciding.
tuning::cache_entry gemm_entry_of(std::vector<std::pair<std::int64_t, std::int64_t>> shape, std::string policy_name,
                                  std::string layout = "NN", int alignment = 16) {
  tuning::cache_entry e = entry_of("gemm", "bf16", std::move(layout), alignment, 0,
                                   std::numeric_limits<std::int64_t>::max(), std::move(policy_name), {{"tile_m", 128}});
  e.shape = std::move(shape);
  return e;
}

void expect_same_section(const tuning::cache_section& a, const tuning::cache_section& b) {
  EXPECT_EQ(a.key.gpu, b.key.gpu);
  EXPECT_EQ(a.key.sms, b.key.sms);
  EXPECT_EQ(a.key.cc, b.key.cc);
  EXPECT_EQ(a.key.driver, b.key.driver);
  EXPECT_EQ(a.key.runtime, b.key.runtime);
  EXPECT_EQ(a.key.cuprim, b.key.cuprim);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    SCOPED_TRACE("entry " + std::to_string(i));
    expect_same_entry(a.entries[i], b.entries[i]);
  }
}

void expect_same_file(const tuning::cache_file& a, const tuning::cache_file& b) {
  ASSERT_EQ(a.sections.size(), b.sections.size());
  for (std::size_t i = 0; i < a.sections.size(); ++i) {
    SCOPED_TRACE("section " + std::to_string(i));
    expect_same_section(a.sections[i], b.sections[i]);
  }
}

// A valid file as a person or another tool might write it: members in the file's documented order, a nested policy.
const std::string valid_text = R"({"format": "cuprim-tuning-1",
 "sections": [{"key": {"gpu": "NVIDIA H200", "sms": 132, "cc": 90, "driver": 13000, "runtime": 13000,
                       "cuprim": "0.1.0"},
               "entries": [{"op": "inclusive_scan", "types": "float", "layout": "", "alignment": 16,
                            "size_min": 3145728, "size_max": 12582911,
                            "policy": {"policy": "lookback_pipeline_policy", "scan_warps": 8,
                                       "pipeline": {"stages": 4}},
                            "time_ms": 0.51, "runner_up_ms": 0.52, "default_ms": 0.53,
                            "runner_up": {"policy": "lookback_policy", "threads": 512}}]}]}
)";

/// valid_text with `from` (which must occur once) replaced by `to`.
std::string replaced(const std::string& from, const std::string& to) {
  const std::size_t at = valid_text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(valid_text.find(from, at + 1), std::string::npos) << from;
  std::string s = valid_text;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

/// The offset parse() reports for `text` (which must not parse), or npos.
std::size_t error_offset(const std::string& text) {
  try {
    (void)tuning::parse(text, "test.json");
  } catch (const tuning::parse_error& e) {
    return e.offset();
  }
  ADD_FAILURE() << "parsed without an error:\n" << text;
  return std::string::npos;
}

// ---- The JSON text both ways.

TEST(TuningCacheJson, ParsesTheDocumentedForm) {
  const tuning::cache_file f = tuning::parse(valid_text, "test.json");
  ASSERT_EQ(f.sections.size(), 1u);
  const tuning::cache_section& s = f.sections[0];
  EXPECT_EQ(s.key, key_of("NVIDIA H200"));
  ASSERT_EQ(s.entries.size(), 1u);
  const tuning::cache_entry& e = s.entries[0];
  EXPECT_EQ(e.op, "inclusive_scan");
  EXPECT_EQ(e.types, "float");
  EXPECT_EQ(e.layout, "");
  EXPECT_EQ(e.alignment, 16);
  EXPECT_EQ(e.size_min, 3145728);
  EXPECT_EQ(e.size_max, 12582911);
  EXPECT_TRUE(e.shape.empty());
  EXPECT_EQ(e.policy_name, "lookback_pipeline_policy");
  EXPECT_EQ(e.policy, (tuning::policy_fields{{"scan_warps", 8}, {"pipeline.stages", 4}}));
  EXPECT_EQ(e.time_ms, 0.51);
  EXPECT_EQ(e.runner_up_ms, 0.52);
  EXPECT_EQ(e.default_ms, 0.53);
  EXPECT_EQ(e.runner_up_name, "lookback_policy");
  EXPECT_EQ(e.runner_up, (tuning::policy_fields{{"threads", 512}}));
}

TEST(TuningCacheJson, OptionalAndUnknownMembers) {
  // No runner-up, no default time; members this version does not know are skipped wherever they are; a nested
  // policy's own "policy" name is not a field; members in any order.
  const std::string text = R"({"sections": [{"entries": [{"types": "double", "op": "reduce", "layout": "NN",
      "alignment": 4, "size_min": -5, "size_max": -5, "note": [1, {"x": null}, true],
      "policy": {"pipeline": {"policy": "inner_policy", "stages": -2}, "policy": "p", "threads": 0},
      "time_ms": 2e-3}], "key": {"gpu": "g", "sms": 1, "cc": 80, "driver": 1, "runtime": 2, "cuprim": "9",
      "host": "x"}, "comment": "z"}], "format": "cuprim-tuning-1", "written_by": {"tool": "lab"}})";
  const tuning::cache_file f = tuning::parse(text, "test.json");
  ASSERT_EQ(f.sections.size(), 1u);
  EXPECT_EQ(f.sections[0].key, key_of("g", 1, 80, 1, 2, "9"));
  ASSERT_EQ(f.sections[0].entries.size(), 1u);
  const tuning::cache_entry& e = f.sections[0].entries[0];
  EXPECT_EQ(e.op, "reduce");
  EXPECT_EQ(e.types, "double");
  EXPECT_EQ(e.layout, "NN");
  EXPECT_EQ(e.alignment, 4);
  EXPECT_EQ(e.size_min, -5);
  EXPECT_EQ(e.size_max, -5);
  EXPECT_EQ(e.policy_name, "p");
  EXPECT_EQ(e.policy, (tuning::policy_fields{{"pipeline.stages", -2}, {"threads", 0}}));
  EXPECT_EQ(e.time_ms, 0.002);
  EXPECT_EQ(e.runner_up_ms, 0.0);
  EXPECT_EQ(e.default_ms, 0.0);
  EXPECT_EQ(e.runner_up_name, "");
  EXPECT_TRUE(e.runner_up.empty());
}

TEST(TuningCacheJson, StringEscapes) {
  const std::string text = replaced(R"("gpu": "NVIDIA H200")",
                                    R"("gpu": "a\"b\\c\/d\b\f\n\r\t\u0001\u00e9\u20AC\ud83d\ude00 é€😀")");
  const tuning::cache_file f = tuning::parse(text, "test.json");
  ASSERT_EQ(f.sections.size(), 1u);
  EXPECT_EQ(f.sections[0].key.gpu,
            "a\"b\\c/d\b\f\n\r\t\x01\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(TuningCacheJson, RoundTrip) {
  tuning::cache_file f;
  tuning::cache_section a;
  a.key = key_of("GPU \"quoted\" back\\slash \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 tab\t newline\n ctl\x01\x1f end",
                 132, 90, 13000, 13010, "0.1.0-dev \"x\"");
  outer_policy winner;
  winner.threads = 128;
  winner.pipeline.stages = 5;
  tuning::cache_entry e1 = entry_of("inclusive_scan", "float", "", 16, 0, 1023, outer_policy::name,
                                    tuning::flatten(winner), 0.1);
  e1.runner_up_ms = 1.0 / 3.0;
  e1.default_ms = 1e-300;
  e1.runner_up_name = inner_policy::name;
  e1.runner_up = tuning::flatten(inner_policy{.scan_warps = 4, .stages = 2});
  a.entries.push_back(e1);
  // Deeper nesting, groups after plain fields, the extremes of every integer; no runner-up.
  tuning::cache_entry e2 = entry_of("exclusive_scan", "uint32->uint64", "", 4, std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max(), "deep \\ \"policy\"",
                                    {{"x", -1},
                                     {"a.b.c", std::numeric_limits<long long>::min()},
                                     {"a.b.d", std::numeric_limits<long long>::max()},
                                     {"a.e", 0},
                                     {"f.policy", 7},
                                     {"g", 3}},
                                    1.2345678e14);
  e2.runner_up_ms = 5e-324;  // the smallest denormal
  e2.default_ms = std::numeric_limits<double>::max();
  e2.alignment = std::numeric_limits<int>::min();
  a.entries.push_back(e2);
  // No fields at all; a runner-up of no fields but a name.
  tuning::cache_entry e3 = entry_of("gemm", "half->float", "NT", std::numeric_limits<int>::max(), 7, 7, "empty", {},
                                    -0.25);
  e3.runner_up_name = "also empty";
  a.entries.push_back(e3);
  f.sections.push_back(a);
  tuning::cache_section b;
  b.key = key_of("NVIDIA H100 80GB HBM3", 132, 90, 12080, 12080, "0.1.0");
  b.entries.push_back(entry_of("reduce", "int", "", 16, 1, 1 << 20, "reduce_policy",
                               {{"threads", 512}, {"vector_bytes", 16}, {"unroll", 4}}, 0.0));
  f.sections.push_back(b);
  f.sections.push_back(tuning::cache_section{key_of("no entries"), {}});

  const std::string text = tuning::to_json(f);
  const tuning::cache_file g = tuning::parse(text, "round-trip.json");
  {
    SCOPED_TRACE(text);
    expect_same_file(f, g);
  }
  // Stable: the same file gives the same text.
  EXPECT_EQ(tuning::to_json(g), text);
  // Policies are written as nested objects, one entry per line.
  EXPECT_NE(text.find(R"("pipeline": {"scan_warps": 8, "stages": 5})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("a": {"b": {"c": )"), std::string::npos) << text;
  EXPECT_EQ(count(text, "\"op\": "), 4u);
  for (const char* op : {"inclusive_scan", "exclusive_scan", "gemm", "reduce"})
    EXPECT_EQ(count(text, std::string("\n        {\"op\": \"") + op + "\""), 1u) << op << "\n" << text;

  const tuning::cache_file empty;
  EXPECT_TRUE(tuning::parse(tuning::to_json(empty), "empty.json").sections.empty());
}

TEST(TuningCacheJson, ShapeRoundTrip) {
  tuning::cache_file f;
  tuning::cache_section s{key_of("NVIDIA H200"), {}};
  s.entries.push_back(gemm_entry_of({{769, 3072}, {1, 384}, {6145, 12288}}, "gemm_a"));
  // One dimension, a dimension of one value, the extremes of the bounds.
  s.entries.push_back(gemm_entry_of({{0, std::numeric_limits<std::int64_t>::max()}}, "gemm_b", "TN"));
  s.entries.push_back(gemm_entry_of({{7, 7}, {0, 0}, {1, 2}, {3, 4}}, "gemm_c"));
  // Beside an entry without one.
  s.entries.push_back(entry_of("scan", "float", "", 16, 0, 1023, "p"));
  f.sections.push_back(s);

  const std::string text = tuning::to_json(f);
  const tuning::cache_file g = tuning::parse(text, "round-trip.json");
  {
    SCOPED_TRACE(text);
    expect_same_file(f, g);
  }
  EXPECT_EQ(tuning::to_json(g), text);
  // Right after size_max, only where there is a shape.
  EXPECT_NE(text.find(R"("size_max": 9223372036854775807, "shape": [[769, 3072], [1, 384], [6145, 12288]], )"
                      R"("policy": )"),
            std::string::npos)
      << text;
  EXPECT_EQ(count(text, "\"shape\""), 3u) << text;

  // An empty shape reads as none.
  const std::string empty = replaced("\"size_max\": 12582911,", "\"size_max\": 12582911, \"shape\": [],");
  const tuning::cache_file h = tuning::parse(empty, "test.json");
  ASSERT_EQ(h.sections.size(), 1u);
  ASSERT_EQ(h.sections[0].entries.size(), 1u);
  EXPECT_TRUE(h.sections[0].entries[0].shape.empty());
}

TEST(TuningCacheJson, ToJsonRejectsWhatCouldNotBeReadBack) {
  auto file_with = [](tuning::cache_entry e) {
    tuning::cache_file f;
    f.sections.push_back(tuning::cache_section{key_of("g"), {std::move(e)}});
    return f;
  };
  const tuning::cache_entry ok = entry_of("op", "float", "", 16, 0, 10, "p", {{"a", 1}});
  EXPECT_NO_THROW((void)tuning::to_json(file_with(ok)));

  tuning::cache_entry e = ok;
  e.time_ms = std::nan("");
  EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument);
  e = ok;
  e.default_ms = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument);
  e = ok;
  e.size_min = 11;
  EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument);
  e = ok;
  e.shape = {{1, 2}, {5, 4}};
  EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument);
  e.shape = {{-1, 2}};
  EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument);
  e.shape = {{0, 0}, {4, 4}};
  EXPECT_NO_THROW((void)tuning::to_json(file_with(e)));
  e = ok;
  e.types = std::string(1, static_cast<char>(0xff));  // a lone byte that starts no UTF-8 character
  EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument);
  const std::vector<tuning::policy_fields> bad_names = {
      {{"a", 1}, {"a", 2}},                  // a field twice
      {{"a", 1}, {"a.b", 2}},                // a field and a group of one name
      {{"a.b", 1}, {"c", 2}, {"a.d", 3}},    // a group split by another field
      {{"policy", 1}},                       // the name's member
      {{"a..b", 1}},                         // an empty part
      {{"a.", 1}},
      {{".a", 1}},
      {{"", 1}},
  };
  for (const tuning::policy_fields& fields : bad_names) {
    e = ok;
    e.policy = fields;
    EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument) << fields[0].first;
    e = ok;
    e.runner_up_name = std::string("r");
    e.runner_up = fields;
    EXPECT_THROW((void)tuning::to_json(file_with(e)), cuprim::invalid_argument) << fields[0].first;
  }
}

// ---- Policies.

TEST(TuningCacheFlatten, NestedPolicyGivesDottedNamesInOrder) {
  outer_policy p;
  p.threads = 128;
  p.pipeline.stages = 5;
  const tuning::policy_fields expected = {{"threads", 128}, {"pipeline.scan_warps", 8}, {"pipeline.stages", 5},
                                          {"items", 4}};
  EXPECT_EQ(tuning::flatten(p), expected);
  EXPECT_EQ(tuning::flatten(inner_policy{}), (tuning::policy_fields{{"scan_warps", 8}, {"stages", 3}}));

  // cuprim::to_json's text of the same policy, stored as an entry's policy, reads back as the same fields.
  const std::string text = R"({"format": "cuprim-tuning-1", "sections": [{"key": {"gpu": "g", "sms": 1, "cc": 90,
      "driver": 1, "runtime": 1, "cuprim": "0.1.0"}, "entries": [{"op": "scan", "types": "float", "layout": "",
      "alignment": 16, "size_min": 0, "size_max": 1, "time_ms": 1, "policy": )" +
                           cuprim::to_json(p) + "}]}]}";
  const tuning::cache_file f = tuning::parse(text, "test.json");
  ASSERT_EQ(f.sections.size(), 1u);
  ASSERT_EQ(f.sections[0].entries.size(), 1u);
  EXPECT_EQ(f.sections[0].entries[0].policy_name, "outer_policy");
  EXPECT_EQ(f.sections[0].entries[0].policy, expected);
}

// ---- Errors.

TEST(TuningCacheErrors, TruncatedText) {
  const std::string cut = valid_text.substr(0, valid_text.find("0.51"));
  EXPECT_EQ(error_offset(cut), cut.size());
  // Every prefix of the file fails (the last character is a newline, the one before closes the file).
  for (std::size_t n = 0; n + 1 < valid_text.size(); ++n)
    EXPECT_THROW((void)tuning::parse(valid_text.substr(0, n), "test.json"), tuning::parse_error) << n;
  EXPECT_NO_THROW((void)tuning::parse(valid_text.substr(0, valid_text.size() - 1), "test.json"));
}

TEST(TuningCacheErrors, TrailingGarbage) {
  EXPECT_EQ(error_offset(valid_text + "  x"), valid_text.size() + 2);
  EXPECT_EQ(error_offset(valid_text + "{}"), valid_text.size());
}

TEST(TuningCacheErrors, WrongFormat) {
  const std::string text = replaced("\"cuprim-tuning-1\"", "\"cuprim-tuning-2\"");
  EXPECT_EQ(error_offset(text), text.find("\"cuprim-tuning-2\""));
  const std::string number = replaced("\"cuprim-tuning-1\"", "1");
  EXPECT_EQ(error_offset(number), number.find(": 1,") + 2);
  const std::string missing = replaced("\"format\": \"cuprim-tuning-1\",", "");
  EXPECT_EQ(error_offset(missing), 0u);
}

TEST(TuningCacheErrors, MissingKeyField) {
  // The offset is that of the object that lacks the member.
  for (const char* field : {"\"gpu\": \"NVIDIA H200\", ", "\"sms\": 132, ", "\"cc\": 90, ", "\"driver\": 13000, ",
                            "\"runtime\": 13000,"}) {
    const std::string text = replaced(field, "");
    EXPECT_EQ(error_offset(text), text.find("{", text.find("\"key\""))) << field;
  }
  const std::string text = replaced(",\n                       \"cuprim\": \"0.1.0\"", "");
  EXPECT_EQ(error_offset(text), text.find("{", text.find("\"key\"")));
}

TEST(TuningCacheErrors, StringWhereAnIntegerBelongs) {
  const std::string text = replaced("\"alignment\": 16", "\"alignment\": \"16\"");
  EXPECT_EQ(error_offset(text), text.find("\"16\""));
  const std::string real = replaced("\"sms\": 132", "\"sms\": 132.0");
  EXPECT_EQ(error_offset(real), real.find("132.0"));
  const std::string big = replaced("\"cc\": 90", "\"cc\": 9000000000");
  EXPECT_EQ(error_offset(big), big.find("9000000000"));
  const std::string gpu = replaced("\"gpu\": \"NVIDIA H200\"", "\"gpu\": 200");
  EXPECT_EQ(error_offset(gpu), gpu.find("200,"));
}

TEST(TuningCacheErrors, SizeMinAboveSizeMax) {
  const std::string text = replaced("\"size_min\": 3145728", "\"size_min\": 12582912");
  EXPECT_EQ(error_offset(text), text.find("12582911"));
  // Equal bounds are a bucket of one size.
  EXPECT_NO_THROW((void)tuning::parse(replaced("\"size_min\": 3145728", "\"size_min\": 12582911"), "test.json"));
}

TEST(TuningCacheErrors, MalformedShape) {
  // valid_text with a shape after size_max.
  auto with_shape = [](const std::string& shape) {
    return replaced("\"size_max\": 12582911,", "\"size_max\": 12582911, \"shape\": " + shape + ",");
  };
  const std::string good = with_shape("[[769, 3072], [1, 384], [6145, 12288]]");
  const tuning::cache_file f = tuning::parse(good, "test.json");
  ASSERT_EQ(f.sections.size(), 1u);
  ASSERT_EQ(f.sections[0].entries.size(), 1u);
  EXPECT_EQ(f.sections[0].entries[0].shape,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{769, 3072}, {1, 384}, {6145, 12288}}));

  const std::string object = with_shape("{\"m\": [1, 2]}");
  EXPECT_EQ(error_offset(object), object.find("{\"m\""));
  const std::string number = with_shape("3");
  EXPECT_EQ(error_offset(number), number.find("3,", number.find("\"shape\"")));
  const std::string flat = with_shape("[1, 2]");
  EXPECT_EQ(error_offset(flat), flat.find("1, 2]"));
  const std::string three = with_shape("[[1, 2], [3, 4, 5]]");
  EXPECT_EQ(error_offset(three), three.find("[3, 4, 5]"));
  const std::string one = with_shape("[[1]]");
  EXPECT_EQ(error_offset(one), one.find("[1]]"));
  const std::string reversed = with_shape("[[1, 2], [40, 30]]");
  EXPECT_EQ(error_offset(reversed), reversed.find("30]"));
  const std::string negative = with_shape("[[-1, 2]]");
  EXPECT_EQ(error_offset(negative), negative.find("[[-1") + 2);
  const std::string real = with_shape("[[1, 2.5]]");
  EXPECT_EQ(error_offset(real), real.find("2.5"));
  const std::string exponent = with_shape("[[1e3, 2000]]");
  EXPECT_EQ(error_offset(exponent), exponent.find("1e3"));
  const std::string string = with_shape("[[\"1\", 2]]");
  EXPECT_EQ(error_offset(string), string.find("\"1\""));
  const std::string big = with_shape("[[0, 9223372036854775808]]");
  EXPECT_EQ(error_offset(big), big.find("9223372036854775808"));
  // The message says what is wrong with which dimension.
  try {
    (void)tuning::parse(reversed, "test.json");
    FAIL() << "parsed";
  } catch (const tuning::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("\"shape\"[1]"), std::string::npos) << e.what();
  }
}

TEST(TuningCacheErrors, PolicyFields) {
  const std::string real = replaced("\"scan_warps\": 8", "\"scan_warps\": 1.5");
  EXPECT_EQ(error_offset(real), real.find("1.5"));
  const std::string exponent = replaced("\"stages\": 4", "\"stages\": 4e0");
  EXPECT_EQ(error_offset(exponent), exponent.find("4e0"));
  const std::string boolean = replaced("\"threads\": 512", "\"threads\": true");
  EXPECT_EQ(error_offset(boolean), boolean.find("true"));
  const std::string string = replaced("\"scan_warps\": 8", "\"scan_warps\": \"8\"");
  EXPECT_EQ(error_offset(string), string.find("\"8\""));
  const std::string dotted = replaced("\"scan_warps\": 8", "\"scan.warps\": 8");
  EXPECT_EQ(error_offset(dotted), dotted.find("\"scan.warps\": 8") + std::string("\"scan.warps\": ").size());
  const std::string no_name = replaced("\"policy\": \"lookback_policy\", ", "");
  EXPECT_EQ(error_offset(no_name), no_name.find("{\"threads\""));
  const std::string numeric_name = replaced("\"policy\": \"lookback_policy\"", "\"policy\": 3");
  EXPECT_EQ(error_offset(numeric_name), numeric_name.find("3, \"threads\""));
  const std::string not_object = replaced("{\"policy\": \"lookback_policy\", \"threads\": 512}", "[]");
  EXPECT_EQ(error_offset(not_object), not_object.find("[]"));
}

TEST(TuningCacheErrors, OtherStructure) {
  EXPECT_EQ(error_offset(""), 0u);
  EXPECT_EQ(error_offset("   "), 3u);
  EXPECT_EQ(error_offset("[]"), 0u);
  EXPECT_EQ(error_offset("{\"format\": \"cuprim-tuning-1\"}"), 0u);
  const std::string sections = "{\"format\": \"cuprim-tuning-1\", \"sections\": {}}";
  EXPECT_EQ(error_offset(sections), sections.find("{}"));
  const std::string section = "{\"format\": \"cuprim-tuning-1\", \"sections\": [7]}";
  EXPECT_EQ(error_offset(section), section.find("7"));
  const std::string entries = replaced("\"entries\": [", "\"entries\": 0, \"x\": [");
  EXPECT_EQ(error_offset(entries), entries.find("0, \"x\""));
  const std::string time = replaced("\"time_ms\": 0.51", "\"time_ms\": null");
  EXPECT_EQ(error_offset(time), time.find("null"));
  const std::string no_time = replaced("\"time_ms\": 0.51, ", "");
  EXPECT_EQ(error_offset(no_time), no_time.find("{\"op\""));
  const std::string runner_up_ms = replaced("\"runner_up_ms\": 0.52", "\"runner_up_ms\": \"0.52\"");
  EXPECT_EQ(error_offset(runner_up_ms), runner_up_ms.find("\"0.52\""));
  const std::string huge = replaced("\"default_ms\": 0.53", "\"default_ms\": 1e999");
  EXPECT_EQ(error_offset(huge), huge.find("1e999"));
}

TEST(TuningCacheErrors, StrictJson) {
  const std::string dup = replaced("\"sms\": 132,", "\"sms\": 132, \"sms\": 132,");
  EXPECT_EQ(error_offset(dup), dup.find("\"sms\"", dup.find("\"sms\"") + 1));
  const std::string comma = replaced("\"threads\": 512}", "\"threads\": 512,}");
  EXPECT_EQ(error_offset(comma), comma.find(",}") + 1);
  const std::string zero = replaced("\"sms\": 132", "\"sms\": 0132");
  EXPECT_EQ(error_offset(zero), zero.find("0132"));
  const std::string plus = replaced("\"sms\": 132", "\"sms\": +132");
  EXPECT_EQ(error_offset(plus), plus.find("+132"));
  const std::string dot = replaced("\"time_ms\": 0.51", "\"time_ms\": 1.");
  EXPECT_EQ(error_offset(dot), dot.find("1.,") + 2);
  const std::string nan = replaced("\"time_ms\": 0.51", "\"time_ms\": NaN");
  EXPECT_EQ(error_offset(nan), nan.find("NaN"));
  const std::string single = replaced("\"op\": \"inclusive_scan\"", "'op': \"inclusive_scan\"");
  EXPECT_EQ(error_offset(single), single.find("'op'"));
  const std::string literal = replaced("\"time_ms\": 0.51", "\"time_ms\": tru");
  EXPECT_EQ(error_offset(literal), literal.find("tru"));
  const std::string comment = valid_text + "// done\n";
  EXPECT_EQ(error_offset(comment), valid_text.size());

  // Strings: escapes, control characters, UTF-8.
  const std::string escape = replaced("\"inclusive_scan\"", "\"inclusive\\x_scan\"");
  EXPECT_EQ(error_offset(escape), escape.find("\\x"));
  const std::string control = replaced("\"inclusive_scan\"", "\"inclusive\t_scan\"");
  EXPECT_EQ(error_offset(control), control.find("\t"));
  const std::string short_u = replaced("\"inclusive_scan\"", "\"inclusive\\u12_scan\"");
  EXPECT_EQ(error_offset(short_u), short_u.find("\\u12"));
  const std::string low = replaced("\"inclusive_scan\"", "\"\\udc00\"");
  EXPECT_EQ(error_offset(low), low.find("\\udc00"));
  const std::string high = replaced("\"inclusive_scan\"", "\"\\ud83d x\"");
  EXPECT_EQ(error_offset(high), high.find("\\ud83d"));
  const std::string high_high = replaced("\"inclusive_scan\"", "\"\\ud83d\\ud83d\"");
  EXPECT_EQ(error_offset(high_high), high_high.find("\\ud83d"));
  const std::string bad_utf8 = replaced("\"inclusive_scan\"", "\"inclusive\xff_scan\"");
  EXPECT_EQ(error_offset(bad_utf8), bad_utf8.find("\xff"));
  const std::string overlong = replaced("\"inclusive_scan\"", "\"inclusive\xc0\xaf_scan\"");
  EXPECT_EQ(error_offset(overlong), overlong.find("\xc0"));
  const std::string surrogate = replaced("\"inclusive_scan\"", "\"inclusive\xed\xa0\x80_scan\"");
  EXPECT_EQ(error_offset(surrogate), surrogate.find("\xed"));
  const std::string cut_utf8 = replaced("\"inclusive_scan\"", "\"inclusive\xe2\x82\"");
  EXPECT_EQ(error_offset(cut_utf8), cut_utf8.find("\xe2"));

  // Nesting deep enough to exhaust a recursive reader's stack is refused, not followed.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_THROW((void)tuning::parse(deep, "test.json"), tuning::parse_error);
}

TEST(TuningCacheErrors, MessageNamesSourceAndOffset) {
  const std::string text = replaced("\"alignment\": 16", "\"alignment\": \"16\"");
  try {
    (void)tuning::parse(text, "/some/where/tuning.json");
    FAIL() << "parsed";
  } catch (const tuning::parse_error& e) {
    const std::string expected_start =
        "/some/where/tuning.json: invalid tuning cache at byte " + std::to_string(text.find("\"16\"")) + ": ";
    EXPECT_EQ(std::string(e.what()).substr(0, expected_start.size()), expected_start) << e.what();
    EXPECT_NE(std::string(e.what()).find("alignment"), std::string::npos) << e.what();
  }
  static_assert(std::is_base_of_v<std::runtime_error, tuning::parse_error>);
}

// ---- Choosing an entry.

class TuningCacheFindEntry : public testing::Test {
protected:
  void SetUp() override {
    tuning::cache_section other{key_of("other GPU"), {entry_of("scan", "float", "", 16, 0, 1 << 30, "other")}};
    tuning::cache_section mine{key_of("this GPU"),
                               {entry_of("scan", "float", "", 16, 1000, 1999, "a"),
                                entry_of("scan", "float", "", 4, 0, 4095, "b"),
                                entry_of("scan", "double", "", 16, 0, 4095, "c"),
                                entry_of("gemm", "float", "NN", 16, 0, 100, "d")}};
    // A second section of the same key (a hand-edited file): the first one counts.
    tuning::cache_section shadow{key_of("this GPU"), {entry_of("scan", "float", "", 1, -100, 1 << 30, "shadow")}};
    file.sections = {other, mine, shadow};
  }

  std::string find(std::string_view op, std::string_view types, std::string_view layout, int alignment,
                   std::int64_t size, const tuning::cache_key& key = key_of("this GPU"), bool* no_section = nullptr) {
    bool none = true;
    const tuning::cache_entry* e =
        tuning::detail::find_entry(file, key, op, types, layout, alignment, size, no_section ? no_section : &none);
    if (!no_section) {
      EXPECT_FALSE(none);
    }
    return e ? e->policy_name : "(none)";
  }

  tuning::cache_file file;
};

TEST_F(TuningCacheFindEntry, SectionByKey) {
  EXPECT_EQ(find("scan", "float", "", 16, 1500), "a");
  EXPECT_EQ(find("scan", "float", "", 16, 1500, key_of("other GPU")), "other");
  EXPECT_EQ(find("scan", "float", "", 16, 1 << 29, key_of("other GPU")), "other");
}

TEST_F(TuningCacheFindEntry, MismatchedKeyHasNoSection) {
  const tuning::cache_key k = key_of("this GPU");
  std::vector<tuning::cache_key> changed(6, k);
  changed[0].gpu = "this GPU ";
  changed[1].sms = 114;
  changed[2].cc = 100;
  changed[3].driver = 13010;
  changed[4].runtime = 12080;
  changed[5].cuprim = "0.1.1";
  for (std::size_t i = 0; i < changed.size(); ++i) {
    bool no_section = false;
    EXPECT_EQ(find("scan", "float", "", 16, 1500, changed[i], &no_section), "(none)") << i;
    EXPECT_TRUE(no_section) << i;
  }
  // A key that matches but has no fitting entry is not a missing section.
  bool no_section = true;
  EXPECT_EQ(find("reduce", "float", "", 16, 1500, k, &no_section), "(none)");
  EXPECT_FALSE(no_section);
  // An empty file has nothing to warn about.
  const tuning::cache_file empty;
  no_section = true;
  EXPECT_EQ(tuning::detail::find_entry(empty, k, "scan", "float", "", 16, 1500, &no_section), nullptr);
  EXPECT_FALSE(no_section);
  // The flag is optional.
  EXPECT_EQ(tuning::detail::find_entry(file, changed[1], "scan", "float", "", 16, 1500), nullptr);
  EXPECT_NE(tuning::detail::find_entry(file, k, "scan", "float", "", 16, 1500), nullptr);
}

TEST_F(TuningCacheFindEntry, AlignmentAtMostTheCalls) {
  EXPECT_EQ(find("scan", "float", "", 32, 1500), "a");
  EXPECT_EQ(find("scan", "float", "", 16, 1500), "a");
  EXPECT_EQ(find("scan", "float", "", 8, 1500), "b");
  EXPECT_EQ(find("scan", "float", "", 4, 1500), "b");
  EXPECT_EQ(find("scan", "float", "", 2, 1500), "(none)");
  EXPECT_EQ(find("scan", "double", "", 8, 100), "(none)");
}

TEST_F(TuningCacheFindEntry, BucketBoundsInclusive) {
  EXPECT_EQ(find("scan", "float", "", 16, 999), "b");
  EXPECT_EQ(find("scan", "float", "", 16, 1000), "a");
  EXPECT_EQ(find("scan", "float", "", 16, 1999), "a");
  EXPECT_EQ(find("scan", "float", "", 16, 2000), "b");
  EXPECT_EQ(find("scan", "float", "", 16, 0), "b");
  EXPECT_EQ(find("scan", "float", "", 16, 4095), "b");
  EXPECT_EQ(find("scan", "float", "", 16, 4096), "(none)");
  EXPECT_EQ(find("scan", "float", "", 16, -1), "(none)");
  EXPECT_EQ(find("gemm", "float", "NN", 16, 100), "d");
  EXPECT_EQ(find("gemm", "float", "NN", 16, 101), "(none)");
}

TEST_F(TuningCacheFindEntry, OpTypesLayoutEqualAndFirstMatchWins) {
  EXPECT_EQ(find("scan", "double", "", 16, 1500), "c");
  EXPECT_EQ(find("scan", "float32", "", 16, 1500), "(none)");
  EXPECT_EQ(find("scan", "float", "NN", 16, 1500), "(none)");
  EXPECT_EQ(find("gemm", "float", "NT", 16, 50), "(none)");
  EXPECT_EQ(find("gemm", "float", "", 16, 50), "(none)");
  EXPECT_EQ(find("Scan", "float", "", 16, 1500), "(none)");
  // "a" and "b" both fit 1500 at alignment 16: the first in the file is taken; swapped, the other is.
  std::swap(file.sections[1].entries[0], file.sections[1].entries[1]);
  EXPECT_EQ(find("scan", "float", "", 16, 1500), "b");
}

class TuningCacheFindEntryShape : public testing::Test {
protected:
  void SetUp() override {
    tuning::cache_section mine{key_of("this GPU"),
                               {gemm_entry_of({{769, 3072}, {1, 384}, {6145, 12288}}, "a"),
                                gemm_entry_of({{0, 1 << 20}, {0, 1 << 20}, {0, 1 << 20}}, "wide", "NN", 4),
                                gemm_entry_of({{1, 100}, {1, 100}}, "rank2"),
                                entry_of("gemm", "bf16", "NN", 16, 0, 1 << 20, "flat")}};
    file.sections = {tuning::cache_section{key_of("other GPU"), {gemm_entry_of({{0, 1 << 20}}, "other")}}, mine};
  }

  std::string find(std::string_view layout, int alignment, std::vector<std::int64_t> dims,
                   const tuning::cache_key& key = key_of("this GPU"), bool* no_section = nullptr) {
    bool none = true;
    const tuning::cache_entry* e = tuning::detail::find_entry_shape(file, key, "gemm", "bf16", layout, alignment, dims,
                                                                    no_section ? no_section : &none);
    if (!no_section) {
      EXPECT_FALSE(none);
    }
    return e ? e->policy_name : "(none)";
  }

  tuning::cache_file file;
};

TEST_F(TuningCacheFindEntryShape, BoundsInclusiveInEveryDimension) {
  EXPECT_EQ(find("NN", 16, {1000, 200, 8000}), "a");
  EXPECT_EQ(find("NN", 16, {769, 1, 6145}), "a");
  EXPECT_EQ(find("NN", 16, {3072, 384, 12288}), "a");
  // Just outside in one dimension, each in turn: the next fitting entry ("wide", alignment 4) answers.
  for (const std::vector<std::int64_t>& dims : {std::vector<std::int64_t>{768, 200, 8000}, {3073, 200, 8000},
                                                {1000, 0, 8000}, {1000, 385, 8000}, {1000, 200, 6144},
                                                {1000, 200, 12289}}) {
    EXPECT_EQ(find("NN", 16, dims), "wide") << dims[0] << " " << dims[1] << " " << dims[2];
    EXPECT_EQ(find("NN", 8, dims), "wide");
  }
  EXPECT_EQ(find("NN", 16, {(1 << 20) + 1, 200, 8000}), "(none)");
  EXPECT_EQ(find("NN", 2, {1000, 200, 8000}), "(none)");
  EXPECT_EQ(find("NT", 16, {1000, 200, 8000}), "(none)");
  EXPECT_EQ(find("NN", 16, {1000, 200, 8000}, key_of("other GPU")), "(none)");
  EXPECT_EQ(find("NN", 16, {1000}, key_of("other GPU")), "other");
}

TEST_F(TuningCacheFindEntryShape, RankMustMatch) {
  EXPECT_EQ(find("NN", 16, {50, 50}), "rank2");
  EXPECT_EQ(find("NN", 16, {50, 50, 50}), "wide");
  EXPECT_EQ(find("NN", 16, {50}), "(none)");
  EXPECT_EQ(find("NN", 16, {50, 50, 50, 50}), "(none)");
  // No dimensions match nothing, not the entry without a shape.
  EXPECT_EQ(find("NN", 16, {}), "(none)");
}

TEST_F(TuningCacheFindEntryShape, ShapeAndSizeEntriesAnswerTheirOwnLookups) {
  // The 1-D search passes over the shape entries (whose size buckets cover everything) to the entry without one.
  const tuning::cache_key k = key_of("this GPU");
  const tuning::cache_entry* e = tuning::detail::find_entry(file, k, "gemm", "bf16", "NN", 16, 1000);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->policy_name, "flat");
  EXPECT_EQ(tuning::detail::find_entry(file, k, "gemm", "bf16", "NN", 16, (1 << 20) + 1), nullptr);
  EXPECT_EQ(tuning::detail::find_entry(file, key_of("other GPU"), "gemm", "bf16", "NN", 16, 5), nullptr);
  // And the shape search never takes the entry without a shape, whatever its bucket.
  file.sections[1].entries.erase(file.sections[1].entries.begin(), file.sections[1].entries.begin() + 3);
  EXPECT_EQ(find("NN", 16, {5}), "(none)");
  EXPECT_EQ(find("NN", 16, {5, 5, 5}), "(none)");
}

TEST_F(TuningCacheFindEntryShape, SectionFlag) {
  bool no_section = false;
  EXPECT_EQ(find("NN", 16, {1000, 200, 8000}, key_of("no such GPU"), &no_section), "(none)");
  EXPECT_TRUE(no_section);
  no_section = true;
  EXPECT_EQ(find("NN", 16, {1 << 21, 1, 1}, key_of("this GPU"), &no_section), "(none)");
  EXPECT_FALSE(no_section);
  const std::int64_t dims[] = {1000, 200, 8000};
  EXPECT_NE(tuning::detail::find_entry_shape(file, key_of("this GPU"), "gemm", "bf16", "NN", 16, dims), nullptr);
}

// ---- Files.

/// A fresh directory under the system's temporary directory, removed with everything in it at the end.
class temp_dir {
public:
  temp_dir() {
    static int serial = 0;
    path_ = fs::temp_directory_path() /
            ("cuprim_tuning_cache_test_" + std::to_string(::getpid()) + "_" + std::to_string(serial++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const fs::path& path() const { return path_; }

private:
  fs::path path_;
};

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(TuningCacheMerge, CreatesReplacesAndAppends) {
  temp_dir dir;
  const fs::path file = dir.path() / "sub" / "dir" / "tuning.json";
  const tuning::cache_key h200 = key_of("NVIDIA H200");
  const tuning::cache_key h100 = key_of("NVIDIA H100", 132, 90, 12080, 12080);

  tuning::cache_section first{h200,
                              {entry_of("scan", "float", "", 16, 0, 1023, "p1", {{"threads", 256}}, 0.5),
                               entry_of("scan", "float", "", 16, 1024, 4095, "p2", {{"threads", 512}}, 0.7)}};
  tuning::merge_into_file(file.string(), first);
  ASSERT_TRUE(fs::exists(file));
  {
    const tuning::cache_file f = tuning::parse(read_file(file), file.string());
    ASSERT_EQ(f.sections.size(), 1u);
    expect_same_section(f.sections[0], first);
  }

  tuning::cache_section second{h100, {entry_of("reduce", "int", "", 16, 0, 100, "r", {{"unroll", 2}}, 0.1)}};
  tuning::merge_into_file(file.string(), second);

  // A new entry replaces the old entries of its op, types, layout and alignment whose ranges overlap its own (p1
  // by `replacement`, p1 and p2 by `wider`); another alignment is another group (appended).
  tuning::cache_entry replacement = entry_of("scan", "float", "", 16, 0, 1023, "p3", {{"a.b", 1}}, 0.4);
  replacement.runner_up_name = "p1";
  replacement.runner_up = {{"threads", 256}};
  replacement.runner_up_ms = 0.5;
  const tuning::cache_entry wider = entry_of("scan", "float", "", 16, 0, 4095, "p4", {}, 0.9);
  const tuning::cache_entry aligned4 = entry_of("scan", "float", "", 4, 0, 1023, "p5", {}, 0.6);
  tuning::merge_into_file(file.string(), tuning::cache_section{h200, {replacement, wider, aligned4}});

  const tuning::cache_file f = tuning::parse(read_file(file), file.string());
  ASSERT_EQ(f.sections.size(), 2u);
  expect_same_section(f.sections[0], tuning::cache_section{h200, {replacement, wider, aligned4}});
  expect_same_section(f.sections[1], second);
  // Nothing but the file is left beside it (the temporary file was renamed).
  EXPECT_EQ(names_in(file.parent_path()), std::vector<std::string>{"tuning.json"});

  // A section to_json refuses leaves the file as it was.
  const std::string before = read_file(file);
  tuning::cache_entry bad = wider;
  bad.time_ms = std::numeric_limits<double>::infinity();
  EXPECT_THROW(tuning::merge_into_file(file.string(), tuning::cache_section{h200, {bad}}), cuprim::invalid_argument);
  EXPECT_EQ(read_file(file), before);
}

TEST(TuningCacheMerge, ARetuningRunLeavesNoStaleEntryInFront) {
  // A run tuned at 2^20 and 2^24 and a later one at 2^22 and 2^26: lookups take the first match, so the old
  // entries, whose ranges cover the new ones', must go.
  temp_dir dir;
  const fs::path file = dir.path() / "tuning.json";
  const tuning::cache_key k = key_of("NVIDIA H200");
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  tuning::merge_into_file(file.string(),
                          tuning::cache_section{k,
                                                {entry_of("scan", "float", "", 16, 1 << 19, 1 << 22, "old", {}, 1),
                                                 entry_of("scan", "float", "", 16, (1 << 22) + 1, top, "old", {}, 1),
                                                 entry_of("scan", "double", "", 16, 1 << 19, top, "keep", {}, 1)}});
  const tuning::cache_section second{k,
                                     {entry_of("scan", "float", "", 16, 1 << 21, 1 << 24, "new", {}, 1),
                                      entry_of("scan", "float", "", 16, (1 << 24) + 1, top, "new", {}, 1)}};
  tuning::merge_into_file(file.string(), second);
  const tuning::cache_file f = tuning::parse(read_file(file), file.string());
  ASSERT_EQ(f.sections.size(), 1u);
  ASSERT_EQ(f.sections[0].entries.size(), 3u);
  EXPECT_EQ(f.sections[0].entries[0].policy_name, "keep");
  for (std::int64_t n : {std::int64_t(1) << 21, std::int64_t(1) << 23, std::int64_t(1) << 30}) {
    const tuning::cache_entry* e = tuning::detail::find_entry(f, k, "scan", "float", "", 16, n);
    ASSERT_NE(e, nullptr) << n;
    EXPECT_EQ(e->policy_name, "new") << n;
  }
  EXPECT_EQ(tuning::detail::find_entry(f, k, "scan", "float", "", 16, 1 << 20), nullptr)
      << "below the new run's sizes the table decides";
}

TEST(TuningCacheMerge, ShapesReplaceOnlyShapesTheyOverlap) {
  temp_dir dir;
  const fs::path file = dir.path() / "tuning.json";
  const tuning::cache_key k = key_of("NVIDIA H200");
  const tuning::cache_entry overlapped = gemm_entry_of({{769, 3072}, {1, 384}, {6145, 12288}}, "overlapped");
  // Overlapping the new entry in m and n, not in k: kept.
  const tuning::cache_entry apart_in_k = gemm_entry_of({{769, 3072}, {1, 384}, {12289, 24576}}, "apart in k");
  const tuning::cache_entry rank2 = gemm_entry_of({{0, 4096}, {0, 4096}}, "rank 2");
  const tuning::cache_entry flat = entry_of("gemm", "bf16", "NN", 16, 0, 1 << 30, "flat");
  const tuning::cache_entry other_layout = gemm_entry_of({{769, 3072}, {1, 384}, {6145, 12288}}, "NT", "NT");
  tuning::merge_into_file(file.string(), tuning::cache_section{k, {overlapped, apart_in_k, rank2, flat, other_layout}});

  // Overlaps `overlapped` in every dimension (only at k = 6145..12288 and m = 3072).
  const tuning::cache_entry replacement = gemm_entry_of({{3072, 6144}, {256, 512}, {4096, 12288}}, "new");
  tuning::merge_into_file(file.string(), tuning::cache_section{k, {replacement}});
  tuning::cache_file f = tuning::parse(read_file(file), file.string());
  ASSERT_EQ(f.sections.size(), 1u);
  expect_same_section(f.sections[0], tuning::cache_section{k, {apart_in_k, rank2, flat, other_layout, replacement}});

  // A 1-D entry replaces the 1-D entry it overlaps, no shape entry; a shape entry of rank 2 replaces its rank only.
  const tuning::cache_entry flat2 = entry_of("gemm", "bf16", "NN", 16, 5, 5, "flat 2");
  const tuning::cache_entry rank2_new = gemm_entry_of({{4096, 8192}, {4096, 4096}}, "rank 2 new");
  tuning::merge_into_file(file.string(), tuning::cache_section{k, {flat2, rank2_new}});
  f = tuning::parse(read_file(file), file.string());
  ASSERT_EQ(f.sections.size(), 1u);
  expect_same_section(f.sections[0],
                      tuning::cache_section{k, {apart_in_k, other_layout, replacement, flat2, rank2_new}});
}

TEST(TuningCacheMerge, CorruptFileIsLeftAlone) {
  temp_dir dir;
  const fs::path file = dir.path() / "tuning.json";
  const std::string corrupt = "{\"format\": \"cuprim-tuning-1\", \"sections\": [";
  write_file(file, corrupt);
  const tuning::cache_section s{key_of("g"), {entry_of("scan", "float", "", 16, 0, 1, "p")}};
  try {
    tuning::merge_into_file(file.string(), s);
    FAIL() << "merged into a corrupt file";
  } catch (const tuning::parse_error& e) {
    EXPECT_EQ(e.offset(), corrupt.size());
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(file), corrupt);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"tuning.json"});
}

TEST(TuningCacheMerge, IoFailuresNameThePath) {
  temp_dir dir;
  const tuning::cache_section s{key_of("g"), {entry_of("scan", "float", "", 16, 0, 1, "p")}};
  // A directory where the file should be: it cannot be read.
  const fs::path directory = dir.path() / "is_a_directory";
  fs::create_directories(directory);
  try {
    tuning::merge_into_file(directory.string(), s);
    FAIL() << "merged into a directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(dynamic_cast<const tuning::parse_error*>(&e), nullptr) << e.what();
    EXPECT_NE(std::string(e.what()).find(directory.string()), std::string::npos) << e.what();
  }
  // A regular file where a parent directory should be: the directory cannot be created.
  write_file(dir.path() / "plain", "x");
  const fs::path below_file = dir.path() / "plain" / "tuning.json";
  try {
    tuning::merge_into_file(below_file.string(), s);
    FAIL() << "merged below a regular file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(below_file.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(dir.path() / "plain"), "x");
  EXPECT_THROW(tuning::merge_into_file("", s), cuprim::invalid_argument);
}

// ---- Where the file is, and lookup.

/// Sets environment variables for one test and restores them after it.
class env_guard {
public:
  env_guard() {
    for (const char* name : {"CUPRIM_TUNING_CACHE", "XDG_CACHE_HOME", "HOME"}) {
      const char* v = std::getenv(name);
      saved_.push_back({name, v ? std::optional<std::string>(v) : std::nullopt});
    }
  }
  ~env_guard() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;
  static void set(const char* name, const char* value) { ::setenv(name, value, 1); }
  static void unset(const char* name) { ::unsetenv(name); }

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(TuningCachePath, Rules) {
  env_guard env;
  env.set("CUPRIM_TUNING_CACHE", "/explicit/tuning.json");
  env.set("XDG_CACHE_HOME", "/xdg");
  env.set("HOME", "/home/user");
  EXPECT_EQ(tuning::cache_path(), "/explicit/tuning.json");
  env.set("CUPRIM_TUNING_CACHE", "");  // set and empty: off, whatever else is set
  EXPECT_EQ(tuning::cache_path(), "");
  env.unset("CUPRIM_TUNING_CACHE");
  EXPECT_EQ(tuning::cache_path(), "/xdg/cuprim/tuning.json");
  env.set("XDG_CACHE_HOME", "/xdg/");
  EXPECT_EQ(tuning::cache_path(), "/xdg/cuprim/tuning.json");
  env.set("XDG_CACHE_HOME", "");  // set but empty: as if unset
  EXPECT_EQ(tuning::cache_path(), "/home/user/.cache/cuprim/tuning.json");
  env.unset("XDG_CACHE_HOME");
  EXPECT_EQ(tuning::cache_path(), "/home/user/.cache/cuprim/tuning.json");
  env.set("HOME", "");
  EXPECT_EQ(tuning::cache_path(), "");
  env.unset("HOME");
  EXPECT_EQ(tuning::cache_path(), "");
  env.set("CUPRIM_TUNING_CACHE", "relative.json");
  EXPECT_EQ(tuning::cache_path(), "relative.json");
}

class TuningCacheLookup : public testing::Test {
protected:
  void SetUp() override { tuning::reset(); }
  void TearDown() override { tuning::reset(); }

  /// Two identical lookups; what they printed to stderr.
  std::string two_lookups(std::optional<tuning::cache_entry>& first, std::optional<tuning::cache_entry>& second) {
    testing::internal::CaptureStderr();
    EXPECT_NO_THROW(first = tuning::lookup("scan", "float", "", 16, 1500));
    EXPECT_NO_THROW(second = tuning::lookup("scan", "float", "", 16, 1500));
    return testing::internal::GetCapturedStderr();
  }

  env_guard env;
  temp_dir dir;
};

TEST_F(TuningCacheLookup, ValidFileOfAnotherGpu) {
  const fs::path file = dir.path() / "tuning.json";
  tuning::merge_into_file(file.string(),
                          tuning::cache_section{key_of("no such GPU", 1, 10, 1, 1, "0.0.0"),
                                                {entry_of("scan", "float", "", 16, 0, 4095, "p")}});
  env.set("CUPRIM_TUNING_CACHE", file.string().c_str());
  const bool device = cuprim::has_device();
  std::optional<tuning::cache_entry> first, second;
  const std::string err = two_lookups(first, second);
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  if (!device) {
    // No device to take a key from: nothing is used and nothing is said.
    EXPECT_EQ(err, "");
  } else {
    const tuning::cache_key k = tuning::current_key();
    const std::string warning = "cuprim: the tuning cache " + file.string() + " has no section for this GPU (" +
                                k.gpu + ", " + std::to_string(k.sms) + " SMs, cc " + std::to_string(k.cc) +
                                ", driver " + std::to_string(k.driver) + ", runtime " + std::to_string(k.runtime) +
                                ", cuprim " + k.cuprim + "); it is ignored and the compiled tuning tables decide\n";
    EXPECT_EQ(err, warning);
  }
}

TEST_F(TuningCacheLookup, SectionOfThisGpu) {
  if (!cuprim::has_device()) GTEST_SKIP() << "no CUDA device: the key of this GPU cannot be read";
  const fs::path file = dir.path() / "tuning.json";
  const tuning::cache_key k = tuning::current_key();
  EXPECT_EQ(k, tuning::current_key(cuprim::current_device()));
  EXPECT_EQ(k.cuprim, "0.1.0");
  EXPECT_GT(k.sms, 0);
  EXPECT_GT(k.driver, 0);
  EXPECT_GT(k.runtime, 0);
  tuning::merge_into_file(file.string(), tuning::cache_section{key_of("no such GPU"), {}});
  tuning::merge_into_file(file.string(),
                          tuning::cache_section{k, {entry_of("scan", "float", "", 16, 1000, 1999, "mine",
                                                             {{"threads", 256}, {"pipeline.stages", 3}})}});
  env.set("CUPRIM_TUNING_CACHE", file.string().c_str());
  std::optional<tuning::cache_entry> first, second;
  EXPECT_EQ(two_lookups(first, second), "");
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(first->policy_name, "mine");
  EXPECT_EQ(first->policy, (tuning::policy_fields{{"threads", 256}, {"pipeline.stages", 3}}));
  EXPECT_FALSE(tuning::lookup("scan", "float", "", 16, 2000).has_value());
  EXPECT_FALSE(tuning::lookup("scan", "float", "", 8, 1500).has_value());
  EXPECT_TRUE(tuning::lookup("scan", "float", "", 16, 1500, cuprim::current_device()).has_value());
  // A device that does not exist: no entry, no exception.
  EXPECT_FALSE(tuning::lookup("scan", "float", "", 16, 1500, 1 << 20).has_value());
}

TEST_F(TuningCacheLookup, ShapeLookupWithFileOfAnotherGpu) {
  const fs::path file = dir.path() / "tuning.json";
  tuning::merge_into_file(file.string(),
                          tuning::cache_section{key_of("no such GPU", 1, 10, 1, 1, "0.0.0"),
                                                {gemm_entry_of({{0, 4096}, {0, 4096}, {0, 4096}}, "g")}});
  env.set("CUPRIM_TUNING_CACHE", file.string().c_str());
  const std::int64_t dims[] = {1024, 1024, 1024};
  std::optional<tuning::cache_entry> first, second, third;
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(first = tuning::lookup_shape("gemm", "bf16", "NN", 16, dims));
  EXPECT_NO_THROW(second = tuning::lookup_shape("gemm", "bf16", "NN", 16, dims));
  EXPECT_NO_THROW(third = tuning::lookup("scan", "float", "", 16, 1500));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  EXPECT_FALSE(third.has_value());
  if (!cuprim::has_device()) {
    // No device to take a key from: nothing is used and nothing is said.
    EXPECT_EQ(err, "");
  } else {
    // One warning for the device, whichever lookup came first.
    EXPECT_EQ(count(err, "has no section for this GPU"), 1u) << err;
    EXPECT_EQ(count(err, "\n"), 1u) << err;
  }
}

TEST_F(TuningCacheLookup, ShapeEntriesOfThisGpu) {
  if (!cuprim::has_device()) GTEST_SKIP() << "no CUDA device: the key of this GPU cannot be read";
  const fs::path file = dir.path() / "tuning.json";
  const tuning::cache_key k = tuning::current_key();
  tuning::merge_into_file(file.string(),
                          tuning::cache_section{k,
                                                {gemm_entry_of({{769, 3072}, {1, 384}, {6145, 12288}}, "mine"),
                                                 entry_of("gemm", "bf16", "NN", 16, 0, 1 << 30, "flat")}});
  env.set("CUPRIM_TUNING_CACHE", file.string().c_str());
  testing::internal::CaptureStderr();
  const std::int64_t inside[] = {1000, 384, 6145};
  const std::optional<tuning::cache_entry> e = tuning::lookup_shape("gemm", "bf16", "NN", 16, inside);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->policy_name, "mine");
  EXPECT_EQ(e->shape, (std::vector<std::pair<std::int64_t, std::int64_t>>{{769, 3072}, {1, 384}, {6145, 12288}}));
  EXPECT_TRUE(tuning::lookup_shape("gemm", "bf16", "NN", 16, inside, cuprim::current_device()).has_value());
  const std::int64_t outside[] = {1000, 385, 6145};
  EXPECT_FALSE(tuning::lookup_shape("gemm", "bf16", "NN", 16, outside).has_value());
  EXPECT_FALSE(tuning::lookup_shape("gemm", "bf16", "NN", 8, inside).has_value());
  const std::int64_t rank2[] = {1000, 384};
  EXPECT_FALSE(tuning::lookup_shape("gemm", "bf16", "NN", 16, rank2).has_value());
  // The 1-D lookup takes the entry without a shape.
  const std::optional<tuning::cache_entry> flat = tuning::lookup("gemm", "bf16", "NN", 16, 1000);
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->policy_name, "flat");
  // A device that does not exist: no entry, no exception.
  EXPECT_FALSE(tuning::lookup_shape("gemm", "bf16", "NN", 16, inside, 1 << 20).has_value());
}

TEST_F(TuningCacheLookup, CorruptFileReportedOnce) {
  const fs::path file = dir.path() / "tuning.json";
  const std::string corrupt = replaced("\"alignment\": 16", "\"alignment\": 1.5");
  write_file(file, corrupt);
  env.set("CUPRIM_TUNING_CACHE", file.string().c_str());
  std::string what;
  try {
    (void)tuning::parse(corrupt, file.string());
  } catch (const tuning::parse_error& e) {
    what = e.what();
  }
  ASSERT_NE(what, "");
  EXPECT_NE(what.find(file.string() + ": invalid tuning cache at byte " + std::to_string(corrupt.find("1.5"))),
            std::string::npos)
      << what;
  const std::string message = "cuprim: ignoring the tuning cache: " + what + "; the compiled tuning tables decide\n";

  std::optional<tuning::cache_entry> first, second;
  EXPECT_EQ(two_lookups(first, second), message);
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  // Read once per process: fixing the file changes nothing until reset().
  write_file(file, valid_text);
  EXPECT_EQ(two_lookups(first, second), "");
  // After reset() the file is read again: corrupt again, it is reported again, once.
  write_file(file, corrupt);
  tuning::reset();
  EXPECT_EQ(two_lookups(first, second), message);
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
}

TEST_F(TuningCacheLookup, UnreadableFileReportedOnce) {
  env.set("CUPRIM_TUNING_CACHE", dir.path().string().c_str());  // a directory
  std::optional<tuning::cache_entry> first, second;
  const std::string err = two_lookups(first, second);
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  EXPECT_EQ(count(err, "cuprim: ignoring the tuning cache: " + dir.path().string() + ": "), 1u) << err;
  EXPECT_EQ(count(err, "\n"), 1u) << err;
}

TEST_F(TuningCacheLookup, NoFileOrOffIsSilent) {
  std::optional<tuning::cache_entry> first, second;
  env.set("CUPRIM_TUNING_CACHE", (dir.path() / "missing.json").string().c_str());
  EXPECT_EQ(two_lookups(first, second), "");
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  tuning::reset();
  env.set("CUPRIM_TUNING_CACHE", "");
  EXPECT_EQ(two_lookups(first, second), "");
  EXPECT_FALSE(first.has_value());
  // An empty but valid file: no sections, nothing to say.
  tuning::reset();
  const fs::path file = dir.path() / "empty.json";
  write_file(file, tuning::to_json(tuning::cache_file{}));
  env.set("CUPRIM_TUNING_CACHE", file.string().c_str());
  EXPECT_EQ(two_lookups(first, second), "");
  EXPECT_FALSE(first.has_value());
}

TEST(TuningCacheKey, NoDeviceThrowsInsteadOfGuessing) {
  if (cuprim::has_device()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_ANY_THROW((void)tuning::current_key());
}

}  // namespace
