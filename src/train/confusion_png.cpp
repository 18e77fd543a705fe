// The confusion matrix as a PNG heat map, drawn with PLplot on an io::PlotPage.
#include <plplot/plplot.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/io/plot_page.h"
#include "exadnn/train/class_metrics.h"

namespace exadnn::train {
namespace {

constexpr double kTextPixels = 13.5;  // the page's text height
// A character's width at that height, generous (DejaVu Sans: ~8 px on average, 'm' 12; this
// PLplot has no public call that measures a string): the margins and the axis titles' places
// beside named classes are sized with it.
constexpr double kCharPixels = 10;
constexpr int64_t kMaxNumbered = 20;  // classes up to which every class's number is written
constexpr int kMinNamedCell = 16;     // pixels a cell needs for its class's name beside it

// The longest class label, in characters (UTF-8 continuation bytes not counted).
size_t longest_label(const ClassMetrics& m) {
  size_t longest = 0;
  for (int64_t c = 0; c < m.classes(); ++c) {
    size_t chars = 0;
    for (const char ch : m.name(c)) chars += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    longest = std::max(longest, chars);
  }
  return longest;
}

// Every class's name beside its row and under its column (written upwards, one text line a
// cell): named classes whose cells are tall enough for a line of text.
bool names_drawn(const ClassMetrics& m) {
  return m.named() && confusion_png_side(m.classes()) / m.classes() >= kMinNamedCell;
}

}  // namespace

int confusion_png_side(int64_t classes) {
  return static_cast<int>(std::clamp<int64_t>(48 * classes, 360, 900));
}

ConfusionMargins confusion_png_margins(const ClassMetrics& m) {
  // Numbers: fixed margins for the labels and axis titles left and below, the title above, the
  // colour bar right. Names: room for the longest beside the rows and under the columns.
  ConfusionMargins margins{100, 150, 80, 70};
  if (names_drawn(m)) {
    const int label = static_cast<int>(kCharPixels * static_cast<double>(longest_label(m)));
    margins.left = std::max(margins.left, 45 + label);
    margins.bottom = std::max(margins.bottom, 45 + label);
  }
  return margins;
}

void write_confusion_png(const std::string& path, const ClassMetrics& m) {
  const int64_t c = m.classes();
  const int side = confusion_png_side(c);
  const ConfusionMargins margin = confusion_png_margins(m);
  const int width = side + margin.width(), height = side + margin.height();
  // The fraction of each true class's examples in each predicted class: f[t][p], 0 for a class
  // without examples.
  std::vector<std::vector<double>> f(static_cast<size_t>(c), std::vector<double>(c, 0.0));
  for (int64_t t = 0; t < c; ++t) {
    const int64_t total = m.support(t);
    for (int64_t p = 0; p < c && total > 0; ++p)
      f[t][p] = static_cast<double>(m.confusion(t, p)) / static_cast<double>(total);
  }

  io::PlotPage page(path, width, height, "confusion_png");
  pladv(0);
  PLFLT page_left = 0, page_right = 0, page_bottom = 0, page_top = 0;  // millimetres
  plgspa(&page_left, &page_right, &page_bottom, &page_top);
  plschr(kTextPixels * (page_right - page_left) / width, 1.0);
  plvpor(static_cast<double>(margin.left) / width, 1.0 - static_cast<double>(margin.right) / width,
         static_cast<double>(margin.bottom) / height,
         1.0 - static_cast<double>(margin.top) / height);
  const double n = static_cast<double>(c);
  plwind(-0.5, n - 0.5, n - 0.5, -0.5);  // class 0 at the top left
  // Colour map 1: white (0) to dark blue (1), linear in each channel.
  const PLFLT position[2] = {0, 1}, red[2] = {1, 8 / 255.0}, green[2] = {1, 48 / 255.0},
              blue[2] = {1, 107 / 255.0};
  plscmap1l(1, 2, position, red, green, blue, nullptr);
  plscol0(1, 40, 40, 40);     // text and frame
  plscol0(2, 160, 160, 160);  // the cells' grid
  // The cells, each filled in its colour; the white page is the zeros.
  for (int64_t t = 0; t < c; ++t)
    for (int64_t p = 0; p < c; ++p) {
      if (f[t][p] <= 0) continue;
      const PLFLT x[4] = {p - 0.5, p + 0.5, p + 0.5, p - 0.5},
                  y[4] = {t - 0.5, t - 0.5, t + 0.5, t + 0.5};
      plcol1(f[t][p]);
      plfill(4, x, y);
    }
  const double cell = static_cast<double>(side) / n;  // pixels
  if (cell >= 6) {                                    // the grid between the cells
    plcol0(2);
    for (int64_t k = 1; k < c; ++k) {
      pljoin(k - 0.5, -0.5, k - 0.5, n - 0.5);
      pljoin(-0.5, k - 0.5, n - 0.5, k - 0.5);
    }
  }
  if (cell >= 36) {  // each cell's fraction, white on the dark ones
    plschr(0, std::min(1.0, cell / 70));
    for (int64_t t = 0; t < c; ++t)
      for (int64_t p = 0; p < c; ++p) {
        char text[16];
        std::snprintf(text, sizeof text, "%.2f", f[t][p]);
        const int grey = f[t][p] > 0.5 ? 255 : 40;
        plscol0(3, grey, grey, grey);
        plcol0(3);
        plptex(static_cast<double>(p), static_cast<double>(t) + 0.1, 1, 0, 0.5, text);
      }
    plschr(0, 1.0);
  }
  plcol0(1);
  const bool names = names_drawn(m);
  const bool labelled = names || c <= kMaxNumbered;  // every class labelled, or PLplot's steps
  plbox(names ? "bct" : "bcnt", labelled ? 1.0 : 0.0, 0, names ? "bct" : "bcntv",
        labelled ? 1.0 : 0.0, 0);
  // The axis titles beyond the labels, in text heights from the frame: where PLplot's pllab puts
  // them beside numbers; beside names, past the longest name's estimated length.
  double title_below = 3.2, title_left = 5.0;
  if (names) {  // the rows' names left of them, the columns' written upwards below them
    for (int64_t k = 0; k < c; ++k) {
      const std::string name = io::plplot_literal(m.name(k));
      const double along = (static_cast<double>(k) + 0.5) / n;  // from the left / the top
      plmtex("lv", 0.6, 1.0 - along, 1.0, name.c_str());
      plmtex("bv", 0.6, along, 1.0, name.c_str());
    }
    const double names_reach =
        0.6 + kCharPixels * static_cast<double>(longest_label(m)) / kTextPixels;
    title_below = names_reach + 1.6;
    title_left = names_reach + 1.0;
  }
  char title[96];
  std::snprintf(title, sizeof title, "confusion matrix: %lld test examples, top-1 %.2f %%",
                static_cast<long long>(m.total()), 100.0 * m.top1());
  plmtex("t", 1.5, 0.5, 0.5, title);
  plmtex("b", title_below, 0.5, 0.5, "predicted class");
  plmtex("l", title_left, 0.5, 0.5, "true class");
  // The colour bar: the fraction of the row, in shades of 0.05.
  io::ColourBar bar{{}, "fraction of the true class", 0.03, 0.04, 1};
  for (int k = 0; k <= 20; ++k) bar.edges.push_back(k / 20.0);
  io::draw_colour_bar(bar);
  page.finish();
}

}  // namespace exadnn::train
