// `exadnn train` configs: defaults, overrides, and every problem reported with its line.
#include "exadnn/train/config.h"
#include "exadnn/train/model_builder.h"
#include "testing.h"

using namespace exadnn;
using exadnn::train::parse_config;

TEST(Config, DefaultIsTheFashionMnistMlp) {
  const train::TrainConfig c = parse_config(train::default_config_yaml(), "default");
  EXPECT_EQ(c.data.dataset, "fashion-mnist");
  EXPECT_EQ(c.data.batch_size, 128);
  ASSERT_EQ(c.model.size(), 6u);
  EXPECT_EQ(c.model[1].kind, "linear");
  EXPECT_EQ(c.model[1].settings.count("out"), 512);
  EXPECT_EQ(c.optimizer.name, "sgd");
  EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.05);
  EXPECT_DOUBLE_EQ(c.optimizer.momentum, 0.9);
  EXPECT_EQ(c.epochs, 3);
}

TEST(Config, OverridesApplyBeforeChecking) {
  const train::TrainConfig c = parse_config(train::default_config_yaml(), "default",
                                            {"optimizer.lr=0.1", "epochs=1", "data.batch_size=64"});
  EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.1);
  EXPECT_EQ(c.epochs, 1);
  EXPECT_EQ(c.data.batch_size, 64);
  EXPECT_EXADNN_ERROR(parse_config(train::default_config_yaml(), "default", {"epochs"}),
                      "key=value");
  EXPECT_EXADNN_ERROR(parse_config(train::default_config_yaml(), "default", {"epochs=zero"}),
                      "'epochs' must be a whole number from 1 to 1000000, got 'zero'");
}

TEST(Config, FlushDenormalsIsOnUnlessSaidOtherwise) {
  const std::string yaml = train::default_config_yaml();
  EXPECT_TRUE(parse_config(yaml, "default").flush_denormals);
  EXPECT_FALSE(parse_config(yaml, "default", {"flush_denormals=false"}).flush_denormals);
  EXPECT_EXADNN_ERROR(parse_config(yaml, "default", {"flush_denormals=sometimes"}),
                      "'config.flush_denormals' must be true or false, got 'sometimes'");
}

TEST(Config, DropLastIsOffUnlessSaidOtherwise) {
  const std::string yaml = train::default_config_yaml();
  EXPECT_FALSE(parse_config(yaml, "default").data.drop_last);
  EXPECT_TRUE(parse_config(yaml, "default", {"data.drop_last=true"}).data.drop_last);
  EXPECT_EXADNN_ERROR(parse_config(yaml, "default", {"data.drop_last=1.5"}),
                      "'data.drop_last' must be true or false, got '1.5'");
  EXPECT_EXADNN_ERROR(parse_config("data: {dataset: fashion-mnist, drop_last: true,\n"
                                   "       stream: {buffer_mb: 64}}\n"
                                   "model: [flatten, {linear: {out: 10}}]\n",
                                   "streamed.yaml"),
                      "streamed.yaml:1: 'data.drop_last' cannot apply to a streamed training set");
}

TEST(Config, ClassNamesAreDistinctNamesOrTheDatasetKindsOwn) {
  const std::string model = "model: [flatten, {linear: {out: 3}}]\n";
  const train::TrainConfig c =
      parse_config("data: {class_names: [cat, dog, 'T-shirt/top']}\n" + model, "names.yaml");
  EXPECT_EQ(c.data.class_names, (std::vector<std::string>{"cat", "dog", "T-shirt/top"}));
  EXPECT_EQ(train::class_names(c.data), c.data.class_names);  // the config's before the kind's
  // Fashion-MNIST's own names when the config gives none; MNIST's digits are numbers only.
  const train::TrainConfig fashion = parse_config(model, "fashion.yaml");
  ASSERT_EQ(train::class_names(fashion.data).size(), 10u);
  EXPECT_EQ(train::class_names(fashion.data)[0], "T-shirt/top");
  EXPECT_EQ(train::class_names(fashion.data)[9], "Ankle boot");
  EXPECT_TRUE(
      train::class_names(parse_config("data: {dataset: mnist}\n" + model, "m.yaml").data).empty());
  EXPECT_EXADNN_ERROR(parse_config("data: {class_names: cat}\n" + model, "bad.yaml"), "bad.yaml:1",
                      "'data.class_names' must be a non-empty list of names");
  EXPECT_EXADNN_ERROR(parse_config("data: {class_names: [cat, '', dog]}\n" + model, "bad.yaml"),
                      "'data.class_names' entry 1 must be a non-empty name");
  EXPECT_EXADNN_ERROR(parse_config("data: {class_names: [cat, [a], dog]}\n" + model, "bad.yaml"),
                      "'data.class_names' entry 1 must be a non-empty name");
  EXPECT_EXADNN_ERROR(parse_config("data: {class_names: [cat, dog, cat]}\n" + model, "bad.yaml"),
                      "'data.class_names' names 'cat' twice");
}

TEST(Config, EveryProblemIsReportedWithItsLine) {
  const std::string text =
      "data: {dataset: imagenet, batch_size: 32}\n"  // line 1: bad dataset
      "model:\n"
      "  - linear: {out: 10, width: 3}\n"   // line 3: unknown key
      "  - softmaxx\n"                      // line 4: unknown layer
      "  - conv2d: {out: 8}\n"              // line 5: missing kernel
      "optimiser: {name: sgd}\n"            // line 6: unknown top-level key
      "optimizer: {name: lbfgs, lr: -1}\n"  // line 7: bad name, bad lr
      "epochs: 0\n";                        // line 8
  try {
    parse_config(text, "bad.yaml");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    for (const char* fragment :
         {"bad.yaml:1: 'data.dataset' is 'imagenet' (allowed: csv, fashion-mnist, hdf5, idx, "
          "mnist)",
          "bad.yaml:3: unknown key 'width' in layer linear (allowed: out)",
          "bad.yaml:4: unknown layer 'softmaxx'", "bad.yaml:5: layer conv2d needs 'kernel'",
          "bad.yaml:6: unknown key 'optimiser' in the top level",
          "bad.yaml:7: 'optimizer.name' is 'lbfgs'",
          "'optimizer.lr' must be a finite number above 0, got '-1'",
          "bad.yaml:8: 'epochs' must be a whole number from 1 to 1000000, got '0'", "8 problems"})
      EXPECT_NE(m.find(fragment), std::string::npos) << "missing: " << fragment << "\nin: " << m;
  }
}

TEST(Config, InvalidYamlNamesTheLine) {
  EXPECT_EXADNN_ERROR(parse_config("model:\n  - linear: {out: 10\nepochs: 2\n", "broken.yaml"),
                      "broken.yaml:", "invalid YAML");
}

TEST(ModelBuilder, InfersInputSizesAndNamesBadLayers) {
  const train::TrainConfig c = parse_config(
      "model:\n  - conv2d: {out: 4, kernel: 3, padding: 1}\n  - relu\n  - maxpool2d: {kernel: 2}\n"
      "  - flatten\n  - linear: {out: 5}\n",
      "cnn.yaml");
  auto net = train::build_model(c.model, {1, 8, 8});
  EXPECT_EQ(net->forward(zeros({2, 1, 8, 8})).shape(), (Shape{2, 5}));
  EXPECT_EQ(net->named_parameters()[2].second.shape(), (Shape{5, 4 * 4 * 4}));
  const train::TrainConfig flat = parse_config("model:\n  - linear: {out: 5}\n", "mlp.yaml");
  EXPECT_EXADNN_ERROR(train::build_model(flat.model, {1, 8, 8}), "layer linear (line 2)",
                      "[1, 8, 8]", "flatten");
}

// A layer that is built but fails on its first example: the error names the layer, the shape
// and where the failure came from (it need not be the shape: e.g. a bad EXADNN_* setting).
TEST(ModelBuilder, ALayerThatFailsOnItsFirstExampleIsNamedWithTheCause) {
  const train::TrainConfig c =
      parse_config("model:\n  - conv2d: {out: 4, kernel: 5}\n  - flatten\n", "small.yaml");
  EXPECT_EXADNN_ERROR(train::build_model(c.model, {1, 3, 3}), "layer conv2d (line 2)",
                      "failed on an example of shape [1, 3, 3]", "conv2d: ");
}

TEST(Config, PrecisionIsFp32Bf16OrFp16) {
  EXPECT_EQ(parse_config(train::default_config_yaml(), "default").precision, "fp32");
  EXPECT_EQ(parse_config(train::default_config_yaml(), "default", {"precision=bf16"}).precision,
            "bf16");
  EXPECT_EXADNN_ERROR(parse_config(train::default_config_yaml(), "default", {"precision=fp8"}),
                      "'config.precision' is 'fp8' (allowed: bf16, fp16, fp32)");
  EXPECT_EXADNN_ERROR(parse_config(train::default_config_yaml() + "distributed: {mode: hogwild}\n",
                                   "default", {"precision=fp16"}),
                      "'precision: fp16' (loss scaling) runs in one process or with",
                      "use bf16 with the other modes");
  EXPECT_EQ(parse_config(train::default_config_yaml() + "distributed: {mode: allreduce}\n",
                         "default", {"precision=fp16"})
                .precision,
            "fp16");
}

TEST(Config, SchedulerIsNoneCosineOrStepWithItsOwnSettings) {
  const std::string yaml = train::default_config_yaml();
  EXPECT_EQ(parse_config(yaml, "default").scheduler.name, "none");
  const train::SchedulerSpec cosine = parse_config(yaml, "default", {"scheduler=cosine"}).scheduler;
  EXPECT_EQ(cosine.name, "cosine");
  EXPECT_EQ(cosine.t_max, 0);  // all the epochs
  const train::SchedulerSpec step =
      parse_config(yaml + "scheduler: {name: step, step_size: 2, gamma: 0.5}\n", "s.yaml")
          .scheduler;
  EXPECT_EQ(step.name, "step");
  EXPECT_EQ(step.step_size, 2);
  EXPECT_EQ(step.gamma, 0.5);
  EXPECT_EXADNN_ERROR(parse_config(yaml, "default", {"scheduler=linear"}),
                      "'scheduler' is 'linear' (allowed: cosine, none, step");
  EXPECT_EXADNN_ERROR(parse_config(yaml + "scheduler: {name: cosine, gamma: 0.5}\n", "c.yaml"),
                      "c.yaml:15:", "'scheduler.gamma' is not a setting of the 'cosine' schedule");
  EXPECT_EXADNN_ERROR(parse_config(yaml + "scheduler: {t_max: 3}\n", "c.yaml"),
                      "'scheduler' needs 'name'");
  EXPECT_EXADNN_ERROR(
      parse_config(yaml + "scheduler: {name: step, step_size: 0, gamma: -1}\n", "c.yaml"),
      "2 problems", "'scheduler.step_size' must be a whole number from 1",
      "'scheduler.gamma' must be a finite number above 0");
  // Modes whose updates other optimizers apply refuse it, naming the mode.
  EXPECT_EXADNN_ERROR(
      parse_config(yaml + "scheduler: cosine\ndistributed: {mode: param_server}\n", "c.yaml"),
      "'distributed.mode: param_server'", "the servers'");
  EXPECT_EXADNN_ERROR(
      parse_config(yaml + "scheduler: cosine\ndistributed: {mode: hogwild}\n", "c.yaml"),
      "'distributed.mode: hogwild'", "worker threads'");
}

// Issue 14: values that crashed libgomp, trained to NaN or were silently dropped are refused by
// name and line.
TEST(Config, CountsAndRatesAreBoundedAndFinite) {
  const std::string yaml = train::default_config_yaml();
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"threads=65536"}),
                      "'threads' must be a whole number from 0 to 1024, got '65536'");
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"threads=40000"}), "'threads'", "'40000'");
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"epochs=2000000000"}), "'epochs'", "'2000000000'");
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"epochs=1.5"}), "'epochs' must be a whole number");
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"optimizer.lr=.inf"}),
                      "'optimizer.lr' must be a finite number above 0, got '.inf'");
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"optimizer.lr=.nan"}), "'optimizer.lr'", "'.nan'");
  EXPECT_EXADNN_ERROR(parse_config(yaml, "d", {"optimizer.momentum=65536"}),
                      "'optimizer.momentum' must be a finite number from 0 to");
  EXPECT_EXADNN_ERROR(
      parse_config(yaml, "d", {"distributed.mode=hogwild", "distributed.threads=5000"}),
      "'distributed.threads' must be a whole number from 1 to 1024");
  EXPECT_EXADNN_ERROR(
      parse_config("model:\n  - leaky_relu: {slope: .nan}\n  - linear: {out: 3000000000}\n",
                   "m.yaml"),
      "m.yaml:2: 'layer leaky_relu.slope' must be a finite number", "m.yaml:3: 'layer linear.out'",
      "'3000000000'");
}

TEST(Config, AnEmptyValueIsNamedAsSuch) {
  EXPECT_EXADNN_ERROR(
      parse_config(train::default_config_yaml(), "d", {"epochs="}),
      "'epochs' must be a whole number from 1 to 1000000, got nothing (an empty value)");
}

TEST(Config, DuplicateKeysAreRefusedWithBothLines) {
  EXPECT_EXADNN_ERROR(parse_config(train::default_config_yaml() + "epochs: 5\n", "dup.yaml"),
                      "dup.yaml:15: key 'epochs' appears twice in one mapping (lines 12 and 15)");
  EXPECT_EXADNN_ERROR(parse_config("optimizer: {lr: 0.1, lr: 0.2}\nmodel: [flatten]\n", "o.yaml"),
                      "key 'lr' appears twice in one mapping (lines 1 and 1)");
}

TEST(Config, DeepNestingIsNamed) {
  EXPECT_EXADNN_ERROR(parse_config("model: " + std::string(5000, '['), "deep.yaml"),
                      "deep.yaml:1: invalid YAML: lists or mappings nested too deeply");
}
