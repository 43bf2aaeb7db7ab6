/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Demangling at the string level: C++ (Itanium), Rust legacy and v0, and
 * what must come back as NULL (not mangled, or not valid). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demangle.h"

static void expect(const char *mangled, const char *want, const char *what)
{
	char *got = demangle(mangled);

	if (want)
		CHECK_STR(got, want, what);
	else
		CHECK(got == NULL, "%s: not demangled (got \"%s\")", what, got ? got : "");
	free(got);
}

int main(void)
{
	char long_name[8192];

	/* perf's short form: no parameters, return type or clone suffix. */
	expect("_ZN2ns3FooIiE3barEv", "ns::Foo<int>::bar", "C++ class template member");
	expect("_ZN2ns5twiceIiEET_S1_", "ns::twice<int>", "C++ function template");
	expect("_Z3fooi", "foo", "C++ free function");
	expect("_ZN2ns3FooIiE3barEv.isra.0", "ns::Foo<int>::bar", "C++ clone suffix");
	expect("_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size",
	       "C++ const member, std");
	/* Legacy Rust: Itanium-shaped, its hash dropped. */
	expect("_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE", "core::fmt::Write::write_fmt",
	       "Rust legacy");
	expect("_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example", "Rust v0");
	expect("_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar", "Rust v0 nested");
	expect("main", NULL, "a C name");
	expect("_Z", NULL, "a prefix alone");
	expect("_ZN3foo", NULL, "truncated C++");
	expect("_Rgarbage", NULL, "not Rust v0");
	expect("", NULL, "empty");
	memset(long_name, 'N', sizeof(long_name) - 1);
	memcpy(long_name, "_ZN", 3);
	long_name[sizeof(long_name) - 1] = '\0';
	expect(long_name, NULL, "an overlong name is left alone");
	CHECK(demangle_candidate("_ZN1a1bEv") && demangle_candidate("_RNv1a") && !demangle_candidate("_Z") &&
	      !demangle_candidate("foo") && !demangle_candidate("_"), "candidates");
	return check_done();
}
