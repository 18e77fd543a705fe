// io::PlotPage: a PLplot page in a PNG, one at a time in the process; the file checked before
// PLplot opens it, and an unfinished page leaves no file.
#include "exadnn/io/plot_page.h"

#include <plplot/plplot.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include "exadnn/io/plot.h"
#include "png_pixels.h"
#include "testing.h"

using namespace exadnn;
namespace fs = std::filesystem;

namespace {

class PlotPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("exadnn_plot_page_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

TEST_F(PlotPageTest, DrawsWithPlplotsOwnCallsIntoAPngOfTheSizeAsked) {
  const std::string path = file("square.png");
  {
    io::PlotPage page(path, 320, 200, "test");
    pladv(0);
    plvpor(0, 1, 0, 1);
    plwind(0, 1, 0, 1);
    plscol0(1, 200, 30, 40);
    plcol0(1);
    const PLFLT x[4] = {0.25, 0.75, 0.75, 0.25}, y[4] = {0.25, 0.25, 0.75, 0.75};
    plfill(4, x, y);
    page.finish();
  }
  const exadnn::testing::RgbImage p = exadnn::testing::read_png_rgb(path);
  ASSERT_EQ(p.width, 320);
  ASSERT_EQ(p.height, 200);
  EXPECT_EQ(p.at(160, 100), (exadnn::testing::Rgb{200, 30, 40}));  // inside the square
  EXPECT_EQ(p.at(10, 10), (exadnn::testing::Rgb{255, 255, 255}));  // the white page
}

TEST_F(PlotPageTest, RefusesAFileItCannotCreateNamingItBeforePlplotOpensIt) {
  const std::string path = "/nonexistent-exadnn-folder/page.png";
  EXPECT_EXADNN_ERROR(io::PlotPage(path, 100, 100, "my_figure"), "my_figure",
                      "cannot create " + path);
  EXPECT_EXADNN_ERROR(io::PlotPage(file("big.png"), 0, 100, "my_figure"), "big.png",
                      "0 x 100 pixels");
}

TEST_F(PlotPageTest, AnUnfinishedPageLeavesNoFile) {
  const std::string path = file("broken.png");
  try {
    io::PlotPage page(path, 100, 100, "test");
    pladv(0);
    throw std::runtime_error("the drawing failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(path));
  // PLplot is usable again afterwards.
  io::write_chart(file("after.png"), {}, {{"a", {0, 1}, {1, 2}}});
  EXPECT_EQ(exadnn::testing::read_png_rgb(file("after.png")).width, 900);
}

TEST_F(PlotPageTest, ChartsFromSeveralThreadsAreAllWritten) {
  // PLplot's state is global: without the page's lock the threads' streams would mix.
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 4; ++k) {
        io::Chart chart;
        chart.width = 300 + 10 * t, chart.height = 200 + 10 * k;
        io::write_chart(file("t" + std::to_string(t) + "_" + std::to_string(k) + ".png"), chart,
                        {{"s", {0, 1, 2}, {1.0 * t, 2.0 * k, 0.5}}});
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 3; ++t)
    for (int k = 0; k < 4; ++k) {
      const exadnn::testing::RgbImage p = exadnn::testing::read_png_rgb(
          file("t" + std::to_string(t) + "_" + std::to_string(k) + ".png"));
      EXPECT_EQ(p.width, 300 + 10 * t);
      EXPECT_EQ(p.height, 200 + 10 * k);
    }
}

TEST_F(PlotPageTest, ColourBarShadesColourMapOneRightOfTheViewport) {
  const std::string path = file("bar.png");
  {
    io::PlotPage page(path, 400, 300, "test");
    pladv(0);
    plvpor(0.1, 0.6, 0.1, 0.9);  // the viewport ends at x = 240 px; nothing drawn in it
    plwind(0, 1, 0, 1);
    const PLFLT position[2] = {0, 1}, red[2] = {1, 0}, green[2] = {0, 0}, blue[2] = {0, 1};
    plscmap1l(1, 2, position, red, green, blue, nullptr);  // pure red to pure blue
    io::draw_colour_bar({{0.0, 0.5, 1.0}, "a #label", 0.05, 0.1, 15});
    page.finish();
  }
  const exadnn::testing::RgbImage p = exadnn::testing::read_png_rgb(path);
  ASSERT_EQ(p.width, 400);
  // Along the bar's middle column, from bottom to top: a reddish shade, then a bluish one.
  int bar_x = -1;
  for (int x = 240; x < 400 && bar_x < 0; ++x) {
    const exadnn::testing::Rgb c = p.at(x, 150);
    if (c[0] != c[2]) bar_x = x + 8;  // inside the bar, past its frame
  }
  ASSERT_GT(bar_x, 240) << "no coloured pixel right of the viewport";
  const exadnn::testing::Rgb low = p.at(bar_x, 250), high = p.at(bar_x, 50);
  EXPECT_GT(low[0], low[2]) << "the lower shade is red-dominated";
  EXPECT_GT(high[2], high[0]) << "the upper shade is blue-dominated";
  for (int x = 0; x < 230; ++x)  // the viewport stays white
    ASSERT_EQ(p.at(x, 150), (exadnn::testing::Rgb{255, 255, 255})) << "x = " << x;
}

TEST_F(PlotPageTest, ColourBarRefusesEdgesThatAreNotAscending) {
  io::PlotPage page(file("bad_bar.png"), 200, 200, "test");
  pladv(0);
  plvpor(0.1, 0.6, 0.1, 0.9);
  EXPECT_EXADNN_ERROR(io::draw_colour_bar({{1.0}, "x"}), "draw_colour_bar", "1 edges");
  EXPECT_EXADNN_ERROR(io::draw_colour_bar({{0.0, 0.5, 0.5}, "x"}), "not ascending at 2");
}

TEST(PlplotLiteral, DoublesTheEscapeCharacterAndKeepsEverythingElse) {
  EXPECT_EQ(io::plplot_literal("run #3, #u2"), "run ##3, ##u2");
  EXPECT_EQ(io::plplot_literal("\xC3\x85 [m]"), "\xC3\x85 [m]");
  EXPECT_EQ(io::plplot_literal(""), "");
}

}  // namespace
