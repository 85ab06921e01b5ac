/* The host CLI's operation interface: every op reads a JSON request and fills a JSON response. */
#ifndef SE_CLI_H
#define SE_CLI_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "se/backend.h"
#include "se/drv.h"
#include "se/ec.h"
#include "se/status.h"

/* Largest byte string a field may carry (hex doubles it on the wire). */
#define CLI_MAX_BYTES 65536

/* An operation: reads fields of req, writes result fields into resp.
 * Returning anything but SE_OK turns the response into {"error": name}. */
typedef se_status (*cli_op_fn)(const json_t *req, json_t *resp);

typedef struct {
    const char *name;    /* batch "op" value, lower_snake_case; the human subcommand uses '-' for '_' */
    cli_op_fn fn;
    const char *fields;  /* one-line synopsis of the request fields, for --help */
} cli_op;

/* A backend (--backend NAME): the crypto API's entry points (se/backend.h) it runs on. */
typedef struct {
    const char *name;
    const se_backend *ops;
} cli_backend;

extern const cli_backend *cli_be;               /* the one chosen by --backend (main.c) */
extern const se_backend cli_soc_ops;            /* soc_backend.c: operations inside the simulated node */
extern const se_backend cli_openssl_ops;        /* openssl_backend.c: OpenSSL's libcrypto */
extern const char *cli_node_config;             /* --node: the node configuration of --backend soc */

/* Op tables, one per area, each ended by an entry with name == NULL. */
extern const cli_op cli_ops_hash[]; /* ops_hash.c: sha256, hmac_sha256 */
extern const cli_op cli_ops_sym[];  /* ops_sym.c: aes modes, cbc_mac, aead */
extern const cli_op cli_ops_drbg[]; /* ops_drbg.c: hmac_drbg */
extern const cli_op cli_ops_ecp[];  /* ops_ecp.c: ECC on every curve kind, x25519, mod_* */
extern const cli_op cli_ops_x509[]; /* ops_x509.c: x509_parse, x509_verify */
extern const cli_op *const cli_op_tables[]; /* batch.c: the tables above, ended by NULL */

/* batch.c: runs one request object; returns the response (caller frees) and sets *ok. */
json_t *cli_run_request(const json_t *req, int *ok);
/* batch.c: one line of `se batch` (a JSON request) -> one line of JSON response written to out.
 * Blank lines are skipped. 1 if the line succeeded (or was blank), 0 if it failed. */
int cli_batch_line(const char *line, FILE *out);

/* Programs with their own flags (`se client ...`): main(argc, argv) with argv[0] the program's
 * name. cli_programs is ended by an entry with name == NULL (programs.c). */
typedef struct {
    const char *name;
    int (*main)(int argc, char **argv);
} cli_program;
extern const cli_program cli_programs[];
int cli_client_main(int argc, char **argv);    /* tls_client.c: DTLS/TLS client */
int cli_server_main(int argc, char **argv);    /* tls_server.c: DTLS/TLS server (one peer at a time) */
int cli_collector_main(int argc, char **argv); /* collector.c: the DTLS collector into SQLite */
int cli_certs_main(int argc, char **argv);     /* certs.c: test CA, server and client certificates */
int cli_load_main(int argc, char **argv);      /* load.c: many DTLS clients at once, a JSON report */

/* Field readers. Errors: SE_ERR_BAD_INPUT (missing or wrong JSON type),
 * SE_ERR_BAD_HEX (not an even-length hex string), SE_ERR_BAD_LENGTH (longer than cap). */
se_status cli_hex(const json_t *req, const char *field, uint8_t *buf, size_t cap, size_t *len);
/* As cli_hex; an absent field gives *len = 0 and *present = 0 (present may be NULL). */
se_status cli_hex_opt(const json_t *req, const char *field, uint8_t *buf, size_t cap, size_t *len,
                      int *present);
/* Unsigned integer given as a JSON integer or a decimal string. */
se_status cli_uint(const json_t *req, const char *field, unsigned long *v);
se_status cli_uint_opt(const json_t *req, const char *field, unsigned long *v, unsigned long dflt);
se_status cli_str(const json_t *req, const char *field, const char **s);
se_status cli_str_opt(const json_t *req, const char *field, const char **s, const char *dflt);

/* Returns st after noting that field caused it (reported as "field" next to the error). */
se_status cli_fail(const char *field, se_status st);

/* Lower-case hex of len bytes into out (2 * len + 1 chars, NUL included); returns out. */
char *cli_to_hex(char *out, const uint8_t *buf, size_t len);

/* Field writers. */
void cli_put_hex(json_t *resp, const char *field, const uint8_t *buf, size_t len);
void cli_put_str(json_t *resp, const char *field, const char *s);
void cli_put_uint(json_t *resp, const char *field, unsigned long v);
void cli_put_bool(json_t *resp, const char *field, int v);

/* Host entropy (getrandom) for ops that need fresh randomness. */
se_status cli_os_random(uint8_t *buf, size_t len);

#endif
