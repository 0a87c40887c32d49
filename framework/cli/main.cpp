#include <cstdio>
#include <ringscope/version.hpp>
int main(int argc, char** argv) {
    std::printf("ringscope %s\n", ringscope::kSdkVersion);
    return 0;
}
