/* httpd: the --listen server (libmicrohttpd, one polling thread for all
 * connections, with a connection limit, a request-size limit and a
 * timeout). Serves what export publishes; never touches the sampler.
 * Requests that wait for intervals (a profile's window, a page not yet
 * rendered) are suspended and resumed by httpd_wake, or by the server's
 * thread past their limit (export_wait_limit) when the main loop stalls. */
#ifndef PERFTOP_HTTPD_H
#define PERFTOP_HTTPD_H

#include <stddef.h>

struct httpd;
struct exporter;

#define HTTPD_MAX_CONNECTIONS 64
#define HTTPD_TIMEOUT_SECS 15
#define HTTPD_REQUEST_BYTES 8192

/* spec as --listen takes it. 0, or -errno with err the user's one line. */
int httpd_start(struct httpd **out, const char *spec, struct exporter *x, char *err, size_t errlen);
/* From the main loop after each interval (and at the run's end): resumes
 * the requests whose wait is over. h may be NULL. */
void httpd_wake(struct httpd *h);
void httpd_stop(struct httpd *h);

#endif
