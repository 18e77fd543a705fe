// The charts' text: a 5x7 pixel font of the printable ASCII characters, drawn doubled. Internal
// to libexadnn's io layer (plot.cpp draws with it).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace exadnn::io::font {

/// One glyph: 7 rows of 5 pixels, bit 4 = the left column.
using Glyph = std::array<unsigned char, 7>;

constexpr int kScale = 2;                // text is the 5x7 font doubled
constexpr int kAdvance = 6 * kScale;     // pixels per character
constexpr int kTextHeight = 7 * kScale;  // pixels per line

/// The glyphs of `s`: one per ASCII character, '?' for a control character or a non-ASCII UTF-8
/// sequence (its continuation bytes are skipped).
std::vector<const Glyph*> glyphs(const std::string& s);

/// Width of `s` in pixels.
int text_width(const std::string& s);

}  // namespace exadnn::io::font
