// Tests DType sizes, names, parsing (and its errors), the promotion table and is_floating.
#include <string>

#include "testing.h"

using namespace exadnn;

namespace {
const DType kAll[] = {DType::f32, DType::f64, DType::f16, DType::bf16,
                      DType::i32, DType::i64, DType::u8,  DType::boolean};
}  // namespace

TEST(DType, Sizes) {
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_EQ(dtype_size(DType::i64), 8u);
  EXPECT_EQ(dtype_size(DType::u8), 1u);
  EXPECT_EQ(dtype_size(DType::boolean), 1u);
  // Sizes agree with the C++ element types.
  for (DType t : kAll)
    visit_dtype(t, [&](auto tag) { EXPECT_EQ(dtype_size(t), sizeof(tag)) << dtype_name(t); });
}

TEST(DType, NamesRoundTrip) {
  const char* expected[] = {"f32", "f64", "f16", "bf16", "i32", "i64", "u8", "bool"};
  int i = 0;
  for (DType t : kAll) {
    EXPECT_STREQ(dtype_name(t), expected[i++]);
    EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  }
  EXPECT_EQ(static_cast<int>(sizeof(kAll) / sizeof(kAll[0])), kDTypeCount);
}

TEST(DType, ParseAliases) {
  EXPECT_EQ(parse_dtype("float32"), DType::f32);
  EXPECT_EQ(parse_dtype("float"), DType::f32);
  EXPECT_EQ(parse_dtype("float64"), DType::f64);
  EXPECT_EQ(parse_dtype("double"), DType::f64);
  EXPECT_EQ(parse_dtype("half"), DType::f16);
  EXPECT_EQ(parse_dtype("float16"), DType::f16);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  EXPECT_EQ(parse_dtype("int32"), DType::i32);
  EXPECT_EQ(parse_dtype("int64"), DType::i64);
  EXPECT_EQ(parse_dtype("uint8"), DType::u8);
}

TEST(DType, ParseUnknownNameFails) {
  EXPECT_EXADNN_ERROR(parse_dtype("f8"), "parse_dtype", "unknown dtype 'f8'", "f32", "bool");
  EXPECT_EXADNN_ERROR(parse_dtype(""), "unknown dtype ''");
  EXPECT_EXADNN_ERROR(parse_dtype("F32"), "unknown dtype 'F32'");
  EXPECT_EXADNN_ERROR(parse_dtype("f32 "), "unknown dtype");
  try {
    parse_dtype("complex64");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "parse_dtype");
  }
}

TEST(DType, IsFloating) {
  for (DType t : kAll) {
    const bool expected = t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
    EXPECT_EQ(is_floating(t), expected) << dtype_name(t);
  }
}

TEST(DType, DtypeOfMapsCppTypes) {
  EXPECT_EQ(dtype_v<float>, DType::f32);
  EXPECT_EQ(dtype_v<double>, DType::f64);
  EXPECT_EQ(dtype_v<Half>, DType::f16);
  EXPECT_EQ(dtype_v<BFloat16>, DType::bf16);
  EXPECT_EQ(dtype_v<int32_t>, DType::i32);
  EXPECT_EQ(dtype_v<int64_t>, DType::i64);
  EXPECT_EQ(dtype_v<uint8_t>, DType::u8);
  EXPECT_EQ(dtype_v<bool>, DType::boolean);
  for (DType t : kAll)
    visit_dtype(t, [&](auto tag) { EXPECT_EQ(dtype_v<decltype(tag)>, t) << dtype_name(t); });
}

TEST(DType, PromotionTable) {
  // Rows and columns in kAll order: f32 f64 f16 bf16 i32 i64 u8 bool.
  using D = DType;
  const D f32 = D::f32, f64 = D::f64, f16 = D::f16, bf = D::bf16, i32 = D::i32, i64 = D::i64,
          u8 = D::u8, b = D::boolean;
  const D table[8][8] = {
      /* f32  */ {f32, f64, f32, f32, f32, f32, f32, f32},
      /* f64  */ {f64, f64, f64, f64, f64, f64, f64, f64},
      /* f16  */ {f32, f64, f16, f32, f16, f16, f16, f16},
      /* bf16 */ {f32, f64, f32, bf, bf, bf, bf, bf},
      /* i32  */ {f32, f64, f16, bf, i32, i64, i32, i32},
      /* i64  */ {f32, f64, f16, bf, i64, i64, i64, i64},
      /* u8   */ {f32, f64, f16, bf, i32, i64, u8, u8},
      /* bool */ {f32, f64, f16, bf, i32, i64, u8, b},
  };
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_EQ(promote_types(kAll[r], kAll[c]), table[r][c])
          << dtype_name(kAll[r]) << " with " << dtype_name(kAll[c]) << " gave "
          << dtype_name(promote_types(kAll[r], kAll[c]));
}

TEST(DType, PromotionIsSymmetricAndIdempotent) {
  for (DType a : kAll) {
    EXPECT_EQ(promote_types(a, a), a);
    for (DType b : kAll) {
      EXPECT_EQ(promote_types(a, b), promote_types(b, a));
      const DType p = promote_types(a, b);
      EXPECT_EQ(promote_types(p, a), p);  // the result absorbs both operands
      EXPECT_EQ(promote_types(p, b), p);
      if (is_floating(a) || is_floating(b)) EXPECT_TRUE(is_floating(p));
    }
  }
}
