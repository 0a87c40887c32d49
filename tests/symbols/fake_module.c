/* Looks like a kernel module to the ELF resolver: a .modinfo name and functions in two sections. */
__attribute__((section(".modinfo"), used)) static const char modinfo_name[] = "name=fake_mod";

__attribute__((noinline)) int fake_alpha(int x) { return x * 3 + 1; }
__attribute__((noinline)) int fake_beta(int x) { return fake_alpha(x) * fake_alpha(x + 1) - 7; }
__attribute__((section(".init.text"), noinline)) int fake_init(void) { return fake_beta(2); }
int fake_counter = 5;
