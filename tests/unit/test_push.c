/* SPDX-License-Identifier: GPL-2.0-or-later */
/* push: the URL it takes and the /ingest target it builds. */
#include "check.h"
#include "push.h"

int main(void)
{
	char host[64], port[8], path[64], t[512], lv[64];

	CHECK(push_parse_url("http://127.0.0.1:4040", host, sizeof(host), port, sizeof(port), path, sizeof(path)) == 0,
	      "host:port");
	CHECK_STR(host, "127.0.0.1", "host");
	CHECK_STR(port, "4040", "port");
	CHECK_STR(path, "", "no prefix");
	CHECK(push_parse_url("http://pyro/a/b/", host, sizeof(host), port, sizeof(port), path, sizeof(path)) == 0,
	      "host and a prefix");
	CHECK_STR(port, "80", "port 80 by default");
	CHECK_STR(path, "/a/b", "the prefix without its trailing slash");
	CHECK(push_parse_url("https://x", host, sizeof(host), port, sizeof(port), path, sizeof(path)) &&
	      push_parse_url("http://", host, sizeof(host), port, sizeof(port), path, sizeof(path)) &&
	      push_parse_url("http://x:0", host, sizeof(host), port, sizeof(port), path, sizeof(path)) &&
	      push_parse_url("http://x:99999", host, sizeof(host), port, sizeof(port), path, sizeof(path)) &&
	      push_parse_url("http://x/a b", host, sizeof(host), port, sizeof(port), path, sizeof(path)) &&
	      push_parse_url("http://x/?q=1", host, sizeof(host), port, sizeof(port), path, sizeof(path)) &&
	      push_parse_url("http://x:/", host, sizeof(host), port, sizeof(port), path, sizeof(path)),
	      "https, no host, bad ports, spaces and queries refused");
	CHECK(push_target(t, sizeof(t), "/p", "web-1", NULL, 100, 110, 4000) == 0, "push_target");
	CHECK_STR(t, "/p/ingest?name=perftop%7Bhost%3Dweb-1%7D&from=100&until=110&format=pprof&sampleRate=4000"
		  "&spyName=perftop", "Pyroscope's parameters, the name percent-encoded");
	CHECK(push_target(t, 20, "/p", "web-1", NULL, 100, 110, 4000) != 0, "too small a buffer refused");
	CHECK(push_target(t, sizeof(t), "", "web-1", "nginx", 100, 110, 0) == 0, "push_target with a comm");
	CHECK_STR(t, "/ingest?name=perftop%7Bhost%3Dweb-1%2Ccomm%3Dnginx%7D&from=100&until=110&format=pprof"
		  "&sampleRate=0&spyName=perftop", "the comm a second label of the name");
	push_label_value(lv, sizeof(lv), "a b{c},d=e\"\xff/1.x-y_z");
	CHECK_STR(lv, "a_b_c__d_e___1.x-y_z", "label values: what Pyroscope's key syntax cannot hold becomes _");
	push_label_value(lv, 4, "abcdef");
	CHECK_STR(lv, "abc", "and they are cut to the room");
	return check_done();
}
