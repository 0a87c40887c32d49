// The conformance manifests under tests/data/traces (written by make-oracles.sh / make-examples.sh).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ringscope::conformance {

// One line of cases.tsv (`case TAB args TAB expected TAB exit`) or examples.tsv
// (`case TAB program TAB args TAB expected`). `exit_code` is 0 for examples (not recorded there).
struct Case {
    std::string name;
    std::string program;  // empty for report cases, "iterate_events" / "kvm_guest_funcs" for examples
    std::vector<std::string> args;
    std::string expected;  // relative to tests/data; may end in .xz
    std::string raw;       // unmodified reference output (raw-oracles.tsv / raw-examples.tsv); may be empty
    int exit_code = 0;
    std::string error;  // set when the line could not be parsed: the test for it fails with this text
};

// Splits ARGS: words separated by one or more spaces; a word wrapped in single quotes keeps its spaces
// (no escapes, no quotes inside). Returns false and sets `error` ("column N: ...") on bad quoting.
bool split_args(std::string_view text, std::vector<std::string>& words, std::string& error);

// Reads a manifest; `examples` selects the examples.tsv layout. `raw_manifest` maps case names to
// unmodified outputs. A missing or malformed file yields one Case whose `error` says why (so the run
// fails visibly instead of silently running nothing).
std::vector<Case> load_cases(const std::string& path, bool examples, const std::string& raw_manifest);

// A gtest-safe name: [A-Za-z0-9_] only.
std::string test_name(const std::string& case_name);

// How gtest shows a Case in failure messages (instead of its bytes).
void PrintTo(const Case& c, std::ostream* os);

}  // namespace ringscope::conformance
