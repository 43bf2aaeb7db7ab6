/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "check.h"
#include "json.h"
#include "sanitize.h"

static char *render(void (*fn)(struct json *j))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void doc(struct json *j)
{
	json_obj_begin(j, NULL);
	json_str(j, "a", "x\"y\\z\n\x1b[31m");
	json_u64(j, "n", 18446744073709551615ULL);
	json_u64(j, "z", 0);
	json_i64(j, "i", -5);
	json_double(j, "d", 1.0 / 3.0, 2);
	json_double(j, "nan", 0.0 / 0.0, 2);
	json_arr_begin(j, "arr");
	json_bool(j, NULL, true);
	json_null(j, NULL);
	json_obj_begin(j, NULL);
	json_obj_end(j);
	json_arr_end(j);
	json_str(j, "utf8", "caf\xc3\xa9 \xff\xfe \xc2\x9b");
	json_obj_end(j);
}

int main(void)
{
	char *out = render(doc);
	char buf[256];
	size_t len = strlen(out);

	CHECK(len > 0 && out[len - 1] == '\n', "a top-level value ends its line (JSON Lines)");
	out[len - 1] = '\0';

	CHECK_STR(out, "{\"a\":\"x\\\"y\\\\z\\n\\u001b[31m\",\"n\":18446744073709551615,\"z\":0,\"i\":-5,"
		  "\"d\":0.33,\"nan\":null,\"arr\":[true,null,{}],"
		  "\"utf8\":\"caf\xc3\xa9 \\ufffd\\ufffd \\ufffd\\ufffd\"}", "JSON document");
	free(out);

	sanitize(buf, sizeof(buf), "ok name");
	CHECK_STR(buf, "ok name", "plain text untouched");
	sanitize(buf, sizeof(buf), "evil\x1b]0;pwned\x07\x1b[2J");
	CHECK(strchr(buf, 0x1b) == NULL && strchr(buf, 0x07) == NULL, "escape sequences neutralised: %s", buf);
	CHECK_STR(buf, "evil\\033]0;pwned\\a\\033[2J", "vis-style escapes");
	sanitize(buf, sizeof(buf), "caf\xc3\xa9");
	CHECK_STR(buf, "caf\xc3\xa9", "valid UTF-8 kept");
	sanitize(buf, sizeof(buf), "\xc2\x9b" "31m\xff");
	CHECK(strchr(buf, (char)0x9b) == NULL && strchr(buf, (char)0xff) == NULL,
	      "C1 CSI and invalid bytes escaped: %s", buf);
	sanitize(buf, sizeof(buf), "back\\slash\ttab\n");
	CHECK_STR(buf, "back\\\\slash\\ttab\\n", "backslash, tab and newline escaped");
	sanitize(buf, 6, "\x1b\x1b\x1b");
	CHECK(strlen(buf) < 6 && strchr(buf, 0x1b) == NULL, "truncation never splits an escape into raw bytes");
	CHECK(sanitize_utf8_len((const unsigned char *)"\xe0\x80\x80") == 0, "overlong rejected");
	CHECK(sanitize_utf8_len((const unsigned char *)"\xed\xa0\x80") == 0, "surrogate rejected");
	CHECK(sanitize_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80") == 4, "4-byte emoji accepted");
	return check_done();
}
