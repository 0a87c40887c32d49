// report -O: libtraceevent 1.7.1's rules for plugin options (the conformance cases fn-O-* check the
// function plugin's booleans against trace-cmd; these cover what no shipped plugin has, such as
// string options and several plugins with one option name).
#include <gtest/gtest.h>

#include "framework/plugin/print_options.hpp"

using namespace ringscope;
using namespace ringscope::plugin;

namespace {

RegisteredPrintOption boolean(const char* plugin, const char* name, bool set) {
    PrintOption o;
    o.plugin = plugin;
    o.name = name;
    o.set = set;
    return {plugin, o, std::make_shared<PrintOptionValue>()};
}

RegisteredPrintOption text(const char* plugin, const char* name, const char* def) {
    PrintOption o;
    o.plugin = plugin;
    o.name = name;
    o.takes_value = true;
    o.default_value = def;
    return {plugin, o, std::make_shared<PrintOptionValue>()};
}

}  // namespace

TEST(PrintOptions, DefaultsComeBackOnEveryApply) {
    std::vector<RegisteredPrintOption> opts{boolean("ftrace", "parent", false),
                                            boolean("ftrace", "indent", true)};
    apply_dash_o(opts, {"parent", "indent"});
    EXPECT_TRUE(opts[0].value->set);
    EXPECT_FALSE(opts[1].value->set);
    apply_dash_o(opts, {});
    EXPECT_FALSE(opts[0].value->set);
    EXPECT_TRUE(opts[1].value->set);
}

TEST(PrintOptions, BareNameReachesEveryPluginNamedOnlyItsOwn) {
    std::vector<RegisteredPrintOption> opts{boolean("a", "x", false), boolean("b", "x", false)};
    apply_dash_o(opts, {"x"});
    EXPECT_TRUE(opts[0].value->set);
    EXPECT_TRUE(opts[1].value->set);
    apply_dash_o(opts, {"b:x"});
    EXPECT_FALSE(opts[0].value->set);
    EXPECT_TRUE(opts[1].value->set);
    // named first, then bare: both toggles apply
    apply_dash_o(opts, {"b:x", "x"});
    EXPECT_TRUE(opts[0].value->set);
    EXPECT_FALSE(opts[1].value->set);
}

TEST(PrintOptions, BooleanWordsAreExact) {
    std::vector<RegisteredPrintOption> opts{boolean("p", "o", false)};
    for (const char* on : {"o=1", "o=true"}) {
        apply_dash_o(opts, {on});
        EXPECT_TRUE(opts[0].value->set) << on;
    }
    for (const char* ignored : {"o=TRUE", "o=yes", "o=", "o=2"}) {
        apply_dash_o(opts, {ignored});
        EXPECT_FALSE(opts[0].value->set) << ignored;
    }
    apply_dash_o(opts, {"o=1", "o=0"});  // the same key: the later value replaces the earlier
    EXPECT_FALSE(opts[0].value->set);
}

TEST(PrintOptions, StringOptionsTakeTheValueAndIgnoreABareName) {
    std::vector<RegisteredPrintOption> opts{text("p", "fmt", "short")};
    apply_dash_o(opts, {"fmt"});
    EXPECT_EQ(opts[0].value->value, "short");
    apply_dash_o(opts, {"p:fmt=long=wide:x"});  // the value runs from the first '='
    EXPECT_EQ(opts[0].value->value, "long=wide:x");
    apply_dash_o(opts, {"p:fmt=a", "fmt=b"});
    EXPECT_EQ(opts[0].value->value, "b");
}
