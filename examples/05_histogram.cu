// Example 05: histograms with cuprim. The seed lecture's text example: the letters of "programming massively
// parallel processors" counted in bins of four letters (a-d, e-h, i-l, m-p, q-t, u-x, y-z) with histogram_even
// (the spaces fall outside [a, a + 28) and are not counted); then a synthetic RGBA image, histogrammed per colour
// channel in one pass with multi_histogram_even (alpha not counted). Each result is checked on the host.
//
//   build/examples/05_histogram
#include <cuprim/cuprim.cuh>
#include <cuprim/host/histogram.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

int main() {
  if (!cuprim::has_device()) {
    std::puts("05_histogram: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  bool ok = true;
  const std::string text = "programming massively parallel processors";
  {
    std::vector<std::uint8_t> bytes(text.begin(), text.end());
    cuprim::device_buffer<std::uint8_t> d{std::span<const std::uint8_t>(bytes)};
    cuprim::device_buffer<std::uint32_t> hist(7);
    cuprim::histogram_even(d.data(), std::int64_t(bytes.size()), hist.data(), 7, int('a'), int('a') + 28);
    const std::vector<std::uint32_t> got = hist.to_host_sync();
    std::vector<std::uint32_t> want(7);
    for (char c : text)
      if (c >= 'a' && c <= 'z') ++want[std::size_t(c - 'a') / 4];
    const char* names[7] = {"a-d", "e-h", "i-l", "m-p", "q-t", "u-x", "y-z"};
    std::printf("\"%s\"\n", text.c_str());
    for (int b = 0; b < 7; ++b) {
      std::printf("  %s %2u ", names[b], got[b]);
      for (std::uint32_t k = 0; k < got[b]; ++k) std::putchar('#');
      std::putchar('\n');
      ok = ok && got[b] == want[b];
    }
  }
  {
    // A 1000 x 700 RGBA image: a red gradient, a green ramp and blue noise; 64 bins per colour channel.
    const int w = 1000, h = 700;
    std::vector<std::uint8_t> px(std::size_t(w) * h * 4);
    std::uint32_t s = 12345;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        std::uint8_t* p = &px[(std::size_t(y) * w + x) * 4];
        s = s * 1664525u + 1013904223u;
        p[0] = std::uint8_t(x * 255 / (w - 1));
        p[1] = std::uint8_t(y * 255 / (h - 1));
        p[2] = std::uint8_t(s >> 24);
        p[3] = 255;
      }
    cuprim::device_buffer<std::uint8_t> image{std::span<const std::uint8_t>(px)};
    cuprim::device_buffer<std::uint32_t> r(64), g(64), b(64);
    const int channels[3] = {0, 1, 2};
    std::uint32_t* hists[3] = {r.data(), g.data(), b.data()};
    const int bins[3] = {64, 64, 64};
    const int lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
    cuprim::multi_histogram_even(image.data(), std::int64_t(w) * h, 4, 3, channels, hists, bins, lower, upper);
    const std::vector<std::uint32_t> got[3] = {r.to_host_sync(), g.to_host_sync(), b.to_host_sync()};
    for (int c = 0; c < 3; ++c) {
      std::vector<std::uint32_t> want(64);
      cuprim::host::histogram_even_strided(px.data(), std::int64_t(w) * h, 4, c, want.data(), 64, 0, 256);
      ok = ok && got[c] == want;
    }
    std::printf("RGBA %dx%d, 64 bins per channel: R[0]=%u G[0]=%u B[0]=%u (host check %s)\n", w, h, got[0][0],
                got[1][0], got[2][0], ok ? "ok" : "FAILED");
  }
  std::puts(ok ? "05_histogram: OK" : "05_histogram: MISMATCH");
  return ok ? 0 : 1;
}
