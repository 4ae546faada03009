// The tuning cache (cuprim/core/tuning.hpp): a small strict JSON reader and writer, the mapping between the file's
// JSON and its structs, and the process-wide lookup.
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/tuning.hpp>

#include <cuda_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>

#ifndef CUPRIM_VERSION_STRING
#error "CUPRIM_VERSION_STRING (cuprim's version, e.g. \"0.1.0\") must be defined by the build"
#endif

namespace cuprim::tuning {

parse_error::parse_error(const std::string& source, std::size_t offset, const std::string& what)
    : std::runtime_error(source + ": invalid tuning cache at byte " + std::to_string(offset) + ": " + what),
      offset_(offset) {}

namespace {

constexpr std::string_view format_name = "cuprim-tuning-1";

// ---- UTF-8 and JSON string text, shared by the reader and the writer.

/// The length of the well-formed UTF-8 sequence that starts at s[i], or 0 when it is not one (overlong forms,
/// surrogates and code points above U+10FFFF are not).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
  if (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
  return n;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Appends `s` as a JSON string. Returns false (leaving `out` partly written) when `s` is not UTF-8.
bool append_quoted(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else if (c < 0x80) {
          out += static_cast<char>(c);
        } else {
          // Other characters go as they are: the file is UTF-8 throughout.
          const std::size_t n = utf8_length(s, i);
          if (n == 0) return false;
          out.append(s.substr(i, n));
          i += n - 1;
        }
    }
  }
  out += '"';
  return true;
}

std::string json_quoted(std::string_view s) {
  std::string out;
  if (!append_quoted(out, s)) return "(a name that is not UTF-8)";
  return out;
}

// ---- Reading JSON: a document tree in which every value keeps its byte offset, so that the errors found while
// mapping it onto the structs still point into the text.

struct json_value {
  enum class kind { null, boolean, number, string, array, object };
  kind k = kind::null;
  std::size_t offset = 0;
  bool boolean = false;
  std::string_view number;         ///< the number's text: converted once its use (integer or not) is known
  std::string string;
  std::vector<json_value> items;   ///< an array's elements, or an object's member values
  std::vector<std::string> names;  ///< an object's member names, parallel to items
};

/// A strict RFC 8259 reader: no comments, no trailing commas, no duplicate member names, strings of UTF-8.
class json_reader {
public:
  json_reader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  json_value document() {
    skip_space();
    json_value v = value(0);
    skip_space();
    if (pos_ != text_.size()) fail(pos_, "unexpected text after the JSON value");
    return v;
  }

private:
  // Far deeper than any cache file; bounds the recursion on hostile text.
  static constexpr int max_depth = 64;

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(std::size_t at, const std::string& what) const { throw parse_error(source_, at, what); }

  [[noreturn]] void unexpected(const char* expected) const {
    if (pos_ >= text_.size()) fail(pos_, std::string("unexpected end of text, expected ") + expected);
    const auto c = static_cast<unsigned char>(text_[pos_]);
    std::string found;
    if (c > 0x20 && c < 0x7F) {
      found = std::string("'") + static_cast<char>(c) + "'";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02x", c);
      found = std::string("byte ") + buf;
    }
    fail(pos_, "unexpected " + found + ", expected " + expected);
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool at_digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  json_value value(int depth) {
    if (depth > max_depth) fail(pos_, "nested deeper than " + std::to_string(max_depth) + " levels");
    if (pos_ >= text_.size()) unexpected("a value");
    switch (text_[pos_]) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': {
        json_value v;
        v.k = json_value::kind::string;
        v.offset = pos_;
        v.string = string_text();
        return v;
      }
      case 't': return literal("true", json_value::kind::boolean, true);
      case 'f': return literal("false", json_value::kind::boolean, false);
      case 'n': return literal("null", json_value::kind::null, false);
      default:
        if (at('-') || at_digit()) return number();
        unexpected("a value");
    }
  }

  json_value literal(std::string_view word, json_value::kind k, bool b) {
    if (text_.substr(pos_, word.size()) != word) unexpected("a value");
    json_value v;
    v.k = k;
    v.offset = pos_;
    v.boolean = b;
    pos_ += word.size();
    return v;
  }

  json_value number() {
    json_value v;
    v.k = json_value::kind::number;
    v.offset = pos_;
    if (at('-')) ++pos_;
    if (at('0')) {
      ++pos_;
      if (at_digit()) fail(v.offset, "a number with a leading zero");
    } else if (at_digit()) {
      while (at_digit()) ++pos_;
    } else {
      unexpected("a digit");
    }
    if (at('.')) {
      ++pos_;
      if (!at_digit()) unexpected("a digit");
      while (at_digit()) ++pos_;
    }
    if (at('e') || at('E')) {
      ++pos_;
      if (at('+') || at('-')) ++pos_;
      if (!at_digit()) unexpected("a digit");
      while (at_digit()) ++pos_;
    }
    v.number = text_.substr(v.offset, pos_ - v.offset);
    return v;
  }

  /// Four hex digits at pos_ (consumed), or -1.
  long hex4() {
    if (pos_ + 4 > text_.size()) return -1;
    long v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_ + i];
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return -1;
      v = v * 16 + d;
    }
    pos_ += 4;
    return v;
  }

  std::string string_text() {
    const std::size_t start = pos_;
    ++pos_;  // the opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail(pos_, "unterminated string (opened at byte " + std::to_string(start) + ")");
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c == '\\') {
        escape(out);
      } else if (c < 0x20) {
        fail(pos_, "a control character in a string (it must be escaped)");
      } else {
        const std::size_t n = utf8_length(text_, pos_);
        if (n == 0) fail(pos_, "a string that is not UTF-8");
        out.append(text_.substr(pos_, n));
        pos_ += n;
      }
    }
  }

  void escape(std::string& out) {
    const std::size_t backslash = pos_++;
    if (pos_ >= text_.size()) fail(pos_, "unterminated string");
    const char e = text_[pos_++];
    switch (e) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': break;
      default: fail(backslash, "an invalid escape in a string");
    }
    long cp = hex4();
    if (cp < 0) fail(backslash, "a \\u escape without four hex digits");
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail(backslash, "a \\u escape of a low surrogate without a high one");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      // Outside the basic plane: a UTF-16 surrogate pair, two escapes.
      long low = -1;
      if (text_.substr(pos_, 2) == "\\u") {
        pos_ += 2;
        low = hex4();
      }
      if (low < 0xDC00 || low > 0xDFFF) fail(backslash, "a \\u escape of a high surrogate without a low one");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, static_cast<std::uint32_t>(cp));
  }

  json_value object(int depth) {
    json_value v;
    v.k = json_value::kind::object;
    v.offset = pos_++;
    skip_space();
    if (at('}')) {
      ++pos_;
      return v;
    }
    for (;;) {
      skip_space();
      if (!at('"')) unexpected("a member name");
      const std::size_t name_at = pos_;
      std::string name = string_text();
      // A name given twice would leave the reader to guess which one counts.
      if (std::find(v.names.begin(), v.names.end(), name) != v.names.end())
        fail(name_at, "member " + json_quoted(name) + " given twice");
      skip_space();
      if (!at(':')) unexpected("':'");
      ++pos_;
      skip_space();
      v.items.push_back(value(depth + 1));
      v.names.push_back(std::move(name));
      skip_space();
      if (at(',')) {
        ++pos_;
        continue;
      }
      if (at('}')) {
        ++pos_;
        return v;
      }
      unexpected("',' or '}'");
    }
  }

  json_value array(int depth) {
    json_value v;
    v.k = json_value::kind::array;
    v.offset = pos_++;
    skip_space();
    if (at(']')) {
      ++pos_;
      return v;
    }
    for (;;) {
      skip_space();
      v.items.push_back(value(depth + 1));
      skip_space();
      if (at(',')) {
        ++pos_;
        continue;
      }
      if (at(']')) {
        ++pos_;
        return v;
      }
      unexpected("',' or ']'");
    }
  }
};

// ---- The document tree onto the structs.

class cache_reader {
public:
  explicit cache_reader(const std::string& source) : source_(source) {}

  cache_file file(const json_value& root) {
    require_object(root, "the file");
    const json_value& format = required(root, "format", "the file");
    if (format.k != json_value::kind::string || format.string != format_name)
      fail(format, "\"format\" must be \"" + std::string(format_name) + "\"");
    const json_value& sections = required(root, "sections", "the file");
    if (sections.k != json_value::kind::array) fail(sections, "\"sections\" must be an array");
    cache_file f;
    f.sections.reserve(sections.items.size());
    for (const json_value& s : sections.items) f.sections.push_back(section(s));
    return f;
  }

private:
  const std::string& source_;

  [[noreturn]] void fail(const json_value& v, const std::string& what) const {
    throw parse_error(source_, v.offset, what);
  }

  static const json_value* member(const json_value& obj, std::string_view name) {
    for (std::size_t i = 0; i < obj.names.size(); ++i)
      if (obj.names[i] == name) return &obj.items[i];
    return nullptr;
  }

  const json_value& required(const json_value& obj, std::string_view name, const char* where) const {
    const json_value* m = member(obj, name);
    if (!m) fail(obj, "missing member \"" + std::string(name) + "\" in " + where);
    return *m;
  }

  void require_object(const json_value& v, const std::string& what) const {
    if (v.k != json_value::kind::object) fail(v, what + " must be an object");
  }

  std::string text(const json_value& v, const std::string& label) const {
    if (v.k != json_value::kind::string) fail(v, label + " must be a string");
    return v.string;
  }

  template <class I>
  I integer(const json_value& v, const std::string& label) const {
    // Integer syntax only: 16.0 or 1e3 where an integer belongs is a mistake worth reporting.
    if (v.k != json_value::kind::number || v.number.find_first_of(".eE") != std::string_view::npos)
      fail(v, label + " must be an integer");
    I out{};
    const char* end = v.number.data() + v.number.size();
    const auto [p, ec] = std::from_chars(v.number.data(), end, out);
    if (ec != std::errc() || p != end) fail(v, label + " is out of range");
    return out;
  }

  double real(const json_value& v, const std::string& label) const {
    if (v.k != json_value::kind::number) fail(v, label + " must be a number");
    double out = 0;
    const char* end = v.number.data() + v.number.size();
    const auto [p, ec] = std::from_chars(v.number.data(), end, out);
    if (ec != std::errc() || p != end) fail(v, label + " is out of range");
    return out;
  }

  cache_section section(const json_value& v) {
    require_object(v, "a section");
    cache_section s;
    const json_value& key = required(v, "key", "a section");
    require_object(key, "\"key\"");
    s.key.gpu = text(required(key, "gpu", "the key"), "\"gpu\"");
    s.key.sms = integer<int>(required(key, "sms", "the key"), "\"sms\"");
    s.key.cc = integer<int>(required(key, "cc", "the key"), "\"cc\"");
    s.key.driver = integer<int>(required(key, "driver", "the key"), "\"driver\"");
    s.key.runtime = integer<int>(required(key, "runtime", "the key"), "\"runtime\"");
    s.key.cuprim = text(required(key, "cuprim", "the key"), "\"cuprim\"");
    const json_value& entries = required(v, "entries", "a section");
    if (entries.k != json_value::kind::array) fail(entries, "\"entries\" must be an array");
    s.entries.reserve(entries.items.size());
    for (const json_value& e : entries.items) s.entries.push_back(entry(e));
    return s;
  }

  cache_entry entry(const json_value& v) {
    require_object(v, "an entry");
    cache_entry e;
    e.op = text(required(v, "op", "an entry"), "\"op\"");
    e.types = text(required(v, "types", "an entry"), "\"types\"");
    e.layout = text(required(v, "layout", "an entry"), "\"layout\"");
    e.alignment = integer<int>(required(v, "alignment", "an entry"), "\"alignment\"");
    e.size_min = integer<std::int64_t>(required(v, "size_min", "an entry"), "\"size_min\"");
    const json_value& size_max = required(v, "size_max", "an entry");
    e.size_max = integer<std::int64_t>(size_max, "\"size_max\"");
    if (e.size_min > e.size_max) fail(size_max, "\"size_max\" is less than \"size_min\"");
    if (const json_value* m = member(v, "shape")) e.shape = shape(*m);
    policy(required(v, "policy", "an entry"), "\"policy\"", e.policy_name, e.policy);
    e.time_ms = real(required(v, "time_ms", "an entry"), "\"time_ms\"");
    if (const json_value* m = member(v, "runner_up_ms")) e.runner_up_ms = real(*m, "\"runner_up_ms\"");
    if (const json_value* m = member(v, "default_ms")) e.default_ms = real(*m, "\"default_ms\"");
    if (const json_value* m = member(v, "runner_up")) policy(*m, "\"runner_up\"", e.runner_up_name, e.runner_up);
    return e;
  }

  // An array of [min, max] pairs of integers, 0 ≤ min ≤ max; an empty one is as if there were none.
  std::vector<std::pair<std::int64_t, std::int64_t>> shape(const json_value& v) const {
    if (v.k != json_value::kind::array) fail(v, "\"shape\" must be an array of [min, max] pairs");
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    out.reserve(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      const json_value& d = v.items[i];
      const std::string label = "\"shape\"[" + std::to_string(i) + "]";
      if (d.k != json_value::kind::array || d.items.size() != 2)
        fail(d, label + " must be an array of two integers [min, max]");
      const auto lo = integer<std::int64_t>(d.items[0], label + "'s min");
      const auto hi = integer<std::int64_t>(d.items[1], label + "'s max");
      if (lo < 0) fail(d.items[0], label + "'s min is negative");
      if (lo > hi) fail(d.items[1], label + "'s max is less than its min");
      out.emplace_back(lo, hi);
    }
    return out;
  }

  void policy(const json_value& v, const std::string& label, std::string& name, policy_fields& fields) {
    require_object(v, label);
    name = text(required(v, "policy", "a policy"), label + "'s \"policy\"");
    policy_members(v, "", true, fields);
  }

  // Nested objects flatten to dotted names, in document order (as tuning::flatten names a policy's fields).
  void policy_members(const json_value& obj, const std::string& prefix, bool top, policy_fields& out) {
    for (std::size_t i = 0; i < obj.names.size(); ++i) {
      const std::string& name = obj.names[i];
      const json_value& v = obj.items[i];
      // The policy's name (read by the caller), or a nested policy's, which cuprim::to_json does not write.
      if (name == "policy" && (top || v.k == json_value::kind::string)) continue;
      const std::string full = prefix + name;
      // A dot in a name would be read back as nesting.
      if (name.empty() || name.find('.') != std::string::npos)
        fail(v, "policy field name " + json_quoted(full) + " is empty or has a '.'");
      if (v.k == json_value::kind::object) {
        policy_members(v, full + ".", false, out);
      } else if (v.k == json_value::kind::number) {
        out.emplace_back(full, integer<long long>(v, "policy field " + json_quoted(full)));
      } else {
        fail(v, "policy field " + json_quoted(full) + " must be an integer or an object");
      }
    }
  }
};

// ---- The structs as JSON text.

[[noreturn]] void unwritable(const std::string& rule) {
  throw cuprim::invalid_argument("cuprim::tuning::to_json", "f", rule);
}

void write_string(std::string& out, std::string_view s) {
  if (!append_quoted(out, s)) unwritable("every string must be UTF-8");
}

void write_double(std::string& out, double d, const char* what) {
  if (!std::isfinite(d)) unwritable(std::string(what) + " must be finite (JSON has no NaN or infinity)");
  char buf[32];
  // Shortest text that reads back as the same double.
  const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
  (void)ec;  // 32 characters hold any double
  out.append(buf, p);
}

/// Writes fields[begin, end), whose names all start with a prefix of `skip` characters, as members of one object:
/// a run of names sharing their next part becomes a nested object. `first`: no comma before the first member.
void write_policy_members(std::string& out, const policy_fields& fields, std::size_t begin, std::size_t end,
                          std::size_t skip, bool first, std::vector<std::string_view> used) {
  for (std::size_t i = begin; i < end;) {
    const std::string_view rest = std::string_view(fields[i].first).substr(skip);
    const std::size_t dot = rest.find('.');
    const std::string_view head = rest.substr(0, dot);
    if (head.empty()) unwritable("policy field name " + json_quoted(fields[i].first) + " has an empty part");
    // Two members of one name (a field twice, "a" beside "a.b", "a.b" split by another field) would not read back.
    if (std::find(used.begin(), used.end(), head) != used.end())
      unwritable("policy field names do not nest: " + json_quoted(fields[i].first) + " repeats " + json_quoted(head));
    used.push_back(head);
    if (!first) out += ", ";
    first = false;
    write_string(out, head);
    out += ": ";
    if (dot == std::string_view::npos) {
      out += std::to_string(fields[i].second);
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < end) {
      const std::string_view r = std::string_view(fields[j].first).substr(skip);
      if (r.size() <= head.size() || r.substr(0, head.size()) != head || r[head.size()] != '.') break;
      ++j;
    }
    out += '{';
    write_policy_members(out, fields, i, j, skip + head.size() + 1, true, {});
    out += '}';
    i = j;
  }
}

void write_policy(std::string& out, const std::string& name, const policy_fields& fields) {
  out += "{\"policy\": ";
  write_string(out, name);
  write_policy_members(out, fields, 0, fields.size(), 0, false, {"policy"});
  out += '}';
}

void write_entry(std::string& out, const cache_entry& e) {
  if (e.size_min > e.size_max) unwritable("an entry's size_min must not exceed its size_max");
  out += "{\"op\": ";
  write_string(out, e.op);
  out += ", \"types\": ";
  write_string(out, e.types);
  out += ", \"layout\": ";
  write_string(out, e.layout);
  out += ", \"alignment\": " + std::to_string(e.alignment);
  out += ", \"size_min\": " + std::to_string(e.size_min);
  out += ", \"size_max\": " + std::to_string(e.size_max);
  if (!e.shape.empty()) {
    out += ", \"shape\": [";
    for (std::size_t i = 0; i < e.shape.size(); ++i) {
      const auto [lo, hi] = e.shape[i];
      if (lo < 0) unwritable("an entry's shape must not have a negative bound");
      if (lo > hi) unwritable("an entry's shape must not have a dimension whose min exceeds its max");
      out += i == 0 ? "[" : ", [";
      out += std::to_string(lo) + ", " + std::to_string(hi) + "]";
    }
    out += ']';
  }
  out += ", \"policy\": ";
  write_policy(out, e.policy_name, e.policy);
  out += ", \"time_ms\": ";
  write_double(out, e.time_ms, "time_ms");
  out += ", \"runner_up_ms\": ";
  write_double(out, e.runner_up_ms, "runner_up_ms");
  out += ", \"default_ms\": ";
  write_double(out, e.default_ms, "default_ms");
  if (!e.runner_up_name.empty() || !e.runner_up.empty()) {
    out += ", \"runner_up\": ";
    write_policy(out, e.runner_up_name, e.runner_up);
  }
  out += '}';
}

// ---- Files.

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

/// Reads a whole file; on failure returns false with `error` saying why.
bool read_text(const std::string& path, std::string& out, std::string& error) {
  std::unique_ptr<std::FILE, file_closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    error = std::error_code(errno, std::generic_category()).message();
    return false;
  }
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) out.append(buf, n);
  if (std::ferror(f.get())) {
    error = std::error_code(errno, std::generic_category()).message();
    return false;
  }
  return true;
}

/// Writes a whole file; on failure returns false with `error` saying why.
bool write_text(const std::string& path, const std::string& text, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = std::error_code(errno, std::generic_category()).message();
    return false;
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int written_errno = errno;
  // A full disk may only show at close.
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    error = std::error_code(written ? errno : written_errno, std::generic_category()).message();
    return false;
  }
  return true;
}

// ---- The process-wide cache behind lookup.

struct device_state {
  cache_key key;
  bool warned = false;  ///< the "no section for this GPU" warning was printed
};

struct cache_state {
  std::mutex mutex;
  /// -1: not read yet; 0: read, no sections (no file, the cache off, or a corrupt file); 1: sections to look in.
  std::atomic<int> active{-1};
  bool loaded = false;
  std::string path;
  cache_file file;
  std::map<int, device_state> devices;
};

cache_state& state() {
  static cache_state s;
  return s;
}

void say(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

void load(cache_state& s) {
  s.loaded = true;  // once per process (or reset), whatever happens below
  s.path = cache_path();
  if (s.path.empty()) return;
  std::error_code ec;
  const bool exists = std::filesystem::exists(s.path, ec);
  if (!exists && !ec) return;  // no cache yet: nothing to say
  std::string text, error;
  if (ec) error = ec.message();
  if (ec || !read_text(s.path, text, error)) {
    say("cuprim: ignoring the tuning cache: " + s.path + ": " + error + "; the compiled tuning tables decide");
    return;
  }
  try {
    s.file = parse(text, s.path);
  } catch (const parse_error& e) {
    say(std::string("cuprim: ignoring the tuning cache: ") + e.what() + "; the compiled tuning tables decide");
  }
}

/// Whether a new entry `e` replaces `old` in merge_into_file (their op, types, layout and alignment aside).
bool overlaps(const cache_entry& e, const cache_entry& old) {
  if (e.shape.size() != old.shape.size()) return false;
  if (e.shape.empty()) return old.size_min <= e.size_max && e.size_min <= old.size_max;
  for (std::size_t i = 0; i < e.shape.size(); ++i)
    if (old.shape[i].first > e.shape[i].second || e.shape[i].first > old.shape[i].second) return false;
  return true;
}

/// find_entry's and find_entry_shape's search: `fits(e)` decides what their own arguments add to the op, types,
/// layout and alignment.
template <class Fits>
const cache_entry* find_first(const cache_file& f, const cache_key& key, std::string_view op, std::string_view types,
                              std::string_view layout, int alignment, bool* no_section, Fits fits) {
  if (no_section) *no_section = false;
  for (const cache_section& s : f.sections) {
    if (!(s.key == key)) continue;
    for (const cache_entry& e : s.entries)
      if (e.op == op && e.types == types && e.layout == layout && e.alignment <= alignment && fits(e)) return &e;
    return nullptr;  // only the first section of the key counts
  }
  if (no_section) *no_section = !f.sections.empty();
  return nullptr;
}

/// lookup's and lookup_shape's body: `find(file, key, no_section)` is their detail:: search.
template <class Find>
std::optional<cache_entry> lookup_with(int device, Find find) {
  // The cache never fails a call: whatever goes wrong here (no device, no memory), the compiled tables decide.
  try {
    cache_state& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.loaded) load(s);
    s.active.store(s.file.sections.empty() ? 0 : 1, std::memory_order_release);
    if (s.file.sections.empty()) return std::nullopt;  // before any CUDA call: no cache costs nothing
    const int ordinal = device < 0 ? current_device() : device;
    auto it = s.devices.find(ordinal);
    if (it == s.devices.end()) it = s.devices.emplace(ordinal, device_state{current_key(ordinal)}).first;
    device_state& d = it->second;
    bool no_section = false;
    const cache_entry* e = find(s.file, d.key, &no_section);
    if (no_section && !d.warned) {
      d.warned = true;
      say("cuprim: the tuning cache " + s.path + " has no section for this GPU (" + d.key.gpu + ", " +
          std::to_string(d.key.sms) + " SMs, cc " + std::to_string(d.key.cc) + ", driver " +
          std::to_string(d.key.driver) + ", runtime " + std::to_string(d.key.runtime) + ", cuprim " +
          d.key.cuprim + "); it is ignored and the compiled tuning tables decide");
    }
    if (e) return *e;
    return std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::string to_json(const cache_file& f) {
  std::string out = "{\n  \"format\": \"" + std::string(format_name) + "\",\n  \"sections\": [";
  for (std::size_t si = 0; si < f.sections.size(); ++si) {
    const cache_section& s = f.sections[si];
    out += si == 0 ? "\n" : ",\n";
    out += "    {\n      \"key\": {\"gpu\": ";
    write_string(out, s.key.gpu);
    out += ", \"sms\": " + std::to_string(s.key.sms);
    out += ", \"cc\": " + std::to_string(s.key.cc);
    out += ", \"driver\": " + std::to_string(s.key.driver);
    out += ", \"runtime\": " + std::to_string(s.key.runtime);
    out += ", \"cuprim\": ";
    write_string(out, s.key.cuprim);
    out += "},\n      \"entries\": [";
    for (std::size_t ei = 0; ei < s.entries.size(); ++ei) {
      out += ei == 0 ? "\n        " : ",\n        ";
      write_entry(out, s.entries[ei]);
    }
    out += s.entries.empty() ? "]\n    }" : "\n      ]\n    }";
  }
  out += f.sections.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

cache_file parse(std::string_view text, const std::string& source) {
  const json_value root = json_reader(text, source).document();
  return cache_reader(source).file(root);
}

cache_key current_key(int device) {
  const device_info& info = get_device_info(device);
  cache_key k;
  k.gpu = info.name;
  k.sms = info.sm_count;
  k.cc = info.arch();
  CUPRIM_CUDA_CHECK(cudaDriverGetVersion(&k.driver));
  CUPRIM_CUDA_CHECK(cudaRuntimeGetVersion(&k.runtime));
  k.cuprim = CUPRIM_VERSION_STRING;
  return k;
}

std::string cache_path() {
  if (const char* p = std::getenv("CUPRIM_TUNING_CACHE")) return p;  // set but empty: the cache is off
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (std::filesystem::path(x) / "cuprim" / "tuning.json").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (std::filesystem::path(h) / ".cache" / "cuprim" / "tuning.json").string();
  return "";
}

void merge_into_file(const std::string& path, const cache_section& section) {
  namespace fs = std::filesystem;
  if (path.empty()) throw cuprim::invalid_argument("cuprim::tuning::merge_into_file", "path", "must name a file");
  // Threads of one process would share the temporary file's name and lose each other's entries.
  static std::mutex merge_mutex;
  std::lock_guard<std::mutex> lock(merge_mutex);

  cache_file f;
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  std::string text, error;
  if (ec) throw std::runtime_error("cuprim::tuning::merge_into_file: cannot read " + path + ": " + ec.message());
  if (exists) {
    if (!read_text(path, text, error))
      throw std::runtime_error("cuprim::tuning::merge_into_file: cannot read " + path + ": " + error);
    f = parse(text, path);
  }

  auto target = std::find_if(f.sections.begin(), f.sections.end(),
                             [&](const cache_section& s) { return s.key == section.key; });
  if (target == f.sections.end()) {
    f.sections.push_back(cache_section{section.key, {}});
    target = f.sections.end() - 1;
  }
  // A new entry replaces every old one of its op, types, layout and alignment that it overlaps (size ranges, or
  // shapes of one rank in every dimension): lookups take the first match, so an old entry left in place would
  // shadow the new run's.
  for (const cache_entry& e : section.entries) {
    std::erase_if(target->entries, [&](const cache_entry& old) {
      return old.op == e.op && old.types == e.types && old.layout == e.layout && old.alignment == e.alignment &&
             overlaps(e, old);
    });
  }
  for (const cache_entry& e : section.entries) target->entries.push_back(e);
  text = to_json(f);  // before anything is written: a section to_json rejects leaves the file as it was

  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error("cuprim::tuning::merge_into_file: cannot create the directory " + parent.string() +
                               " for " + path + ": " + ec.message());
  }
  // Written beside the file and renamed over it, so that a reader sees the old file or the new one, never a part.
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  if (!write_text(tmp, text, error)) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cuprim::tuning::merge_into_file: cannot write " + tmp + " (for " + path +
                             "): " + error);
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw std::runtime_error("cuprim::tuning::merge_into_file: cannot rename " + tmp + " to " + path + ": " + why);
  }
}

namespace detail {
const cache_entry* find_entry(const cache_file& f, const cache_key& key, std::string_view op, std::string_view types,
                              std::string_view layout, int alignment, std::int64_t size, bool* no_section) {
  return find_first(f, key, op, types, layout, alignment, no_section, [&](const cache_entry& e) {
    return e.shape.empty() && e.size_min <= size && size <= e.size_max;
  });
}

const cache_entry* find_entry_shape(const cache_file& f, const cache_key& key, std::string_view op,
                                    std::string_view types, std::string_view layout, int alignment,
                                    std::span<const std::int64_t> dims, bool* no_section) {
  return find_first(f, key, op, types, layout, alignment, no_section, [&](const cache_entry& e) {
    if (dims.empty() || e.shape.size() != dims.size()) return false;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (dims[i] < e.shape[i].first || dims[i] > e.shape[i].second) return false;
    return true;
  });
}
}  // namespace detail

std::optional<cache_entry> lookup(std::string_view op, std::string_view types, std::string_view layout,
                                  int alignment, std::int64_t size, int device) {
  return lookup_with(device, [&](const cache_file& f, const cache_key& key, bool* no_section) {
    return detail::find_entry(f, key, op, types, layout, alignment, size, no_section);
  });
}

std::optional<cache_entry> lookup_shape(std::string_view op, std::string_view types, std::string_view layout,
                                        int alignment, std::span<const std::int64_t> dims, int device) {
  return lookup_with(device, [&](const cache_file& f, const cache_key& key, bool* no_section) {
    return detail::find_entry_shape(f, key, op, types, layout, alignment, dims, no_section);
  });
}

bool active() {
  cache_state& s = state();
  const int a = s.active.load(std::memory_order_acquire);
  if (a >= 0) return a == 1;
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.loaded) load(s);
    s.active.store(s.file.sections.empty() ? 0 : 1, std::memory_order_release);
    return !s.file.sections.empty();
  } catch (...) {
    return false;
  }
}

void reset() {
  cache_state& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.active.store(-1, std::memory_order_release);
  s.loaded = false;
  s.path.clear();
  s.file = cache_file{};
  s.devices.clear();
}

}  // namespace cuprim::tuning
