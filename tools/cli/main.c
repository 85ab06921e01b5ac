/* se: the host command-line tool over the crypto API (human subcommands and JSON-lines batch mode). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "se/tls.h"

/* One JSON object per input line, one per output line; exit 1 if any line failed. */
static int batch(void)
{
    char *line = NULL;
    size_t cap = 0;
    int all_ok = 1;

    while (getline(&line, &cap, stdin) > 0)
        all_ok &= cli_batch_line(line, stdout);
    free(line);
    return all_ok ? 0 : 1;
}

/* `se ecdsa-sign --curve secp256r1 --key HEX`: the flags become the fields of one request. */
static int human(const char *opname, int argc, char **argv)
{
    json_t *req = json_object();
    char name[64];
    int ok;

    snprintf(name, sizeof name, "%s", opname);
    for (char *c = name; *c; c++)
        if (*c == '-')
            *c = '_';
    json_object_set_new(req, "op", json_string(name));
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) != 0 || i + 1 >= argc) {
            fprintf(stderr, "se: expected --field value, got '%s'\n", argv[i]);
            json_decref(req);
            return 2;
        }
        /* --tag-len and --tag_len both name the field tag_len */
        char field[64];
        snprintf(field, sizeof field, "%s", argv[i] + 2);
        for (char *c = field; *c; c++)
            if (*c == '-')
                *c = '_';
        /* A value that is itself JSON (a custom curve object) is passed through as JSON. */
        json_t *v = argv[i + 1][0] == '{' ? json_loads(argv[i + 1], 0, NULL) : NULL;
        json_object_set_new(req, field, v ? v : json_string(argv[i + 1]));
        i++;
    }
    json_t *resp = cli_run_request(req, &ok);
    const char *key;
    json_t *val;
    json_object_foreach(resp, key, val) {
        FILE *f = ok ? stdout : stderr;
        if (json_is_string(val))
            fprintf(f, "%s: %s\n", key, json_string_value(val));
        else {
            char *s = json_dumps(val, JSON_ENCODE_ANY);
            fprintf(f, "%s: %s\n", key, s);
            free(s);
        }
    }
    json_decref(resp);
    json_decref(req);
    return ok ? 0 : 1;
}

/* `se names`: the names of status codes, TLS alerts and cipher suites as one JSON object of
 * number -> name maps. The node's firmware prints the numbers (names cost it ROM); the host's
 * tools (tools/provision.py) name them with this. */
static int names(void)
{
    const char *sep = "";
    printf("{\"status\":{");
    for (int st = 0; st < SE_STATUS_COUNT; st++, sep = ",")
        printf("%s\"%d\":\"%s\"", sep, st, se_status_name((se_status)st));
    printf("},\"alert\":{");
    sep = "";
    for (int a = 0; a < 256; a++)
        if (strcmp(se_tls_alert_name(a), "unknown") != 0) {
            printf("%s\"%d\":\"%s\"", sep, a, se_tls_alert_name(a));
            sep = ",";
        }
    printf("},\"suite\":{");
    sep = "";
    for (unsigned id = 0; id <= 0xffffu; id++)
        if (strcmp(se_tls_suite_name((uint16_t)id), "unknown") != 0) {
            printf("%s\"%u\":\"%s\"", sep, id, se_tls_suite_name((uint16_t)id));
            sep = ",";
        }
    printf("}}\n");
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: se [--backend B] [--node C] batch            JSON lines in, JSON lines out\n"
               "       se [--backend B] [--node C] OP --field value  one operation, fields as flags\n"
               "       se ops                                        list operations and their fields\n"
               "       se names                                      status, alert and suite numbers -> names (JSON)\n"
               "backends: sw (default, the C library), rtl (the engine drivers on a Verilator model of\n"
               "          the engine), soc (each operation inside the simulated node: CPU, firmware,\n"
               "          drivers and engine), openssl (OpenSSL's libcrypto; built-in curves only, no mod_*)\n"
               "nodes (--node, for soc): sw-rv32i, sw-rv32im, sw+hw-rv32i, sw+hw-rv32im (default), sw+hw-rv32imc\n"
               "       se client|server|collector|certs ...          DTLS/TLS programs, see se PROGRAM --help\n"
               "see docs/cli.md\n");
}

/* The backends (--backend): `sw` is the crypto library and `rtl` the engine drivers against the
 * Verilator model of the engine (both through se/backend.h); `soc` runs each operation inside the
 * simulated node (soc_backend.c); `openssl` runs on OpenSSL's libcrypto (openssl_backend.c). */
static const cli_backend backend_sw = {"sw", &se_backend_sw};
static const cli_backend backend_rtl = {"rtl", &se_backend_hw};
static const cli_backend backend_soc = {"soc", &cli_soc_ops};
static const cli_backend backend_openssl = {"openssl", &cli_openssl_ops};
static const cli_backend *const backends[] = {&backend_sw, &backend_rtl, &backend_soc, &backend_openssl, NULL};
const cli_backend *cli_be = &backend_sw;

int main(int argc, char **argv)
{
    const char *backend = "sw";
    int i = 1;

    for (;;) {
        if (i + 1 < argc && strcmp(argv[i], "--backend") == 0)
            backend = argv[i + 1];
        else if (i + 1 < argc && strcmp(argv[i], "--node") == 0)
            cli_node_config = argv[i + 1];
        else
            break;
        i += 2;
    }
    cli_be = NULL;
    for (size_t b = 0; backends[b] != NULL; b++)
        if (strcmp(backend, backends[b]->name) == 0)
            cli_be = backends[b];
    if (cli_be == NULL) {
        fprintf(stderr, "se: unknown backend '%s' (have: sw, rtl, soc, openssl)\n", backend);
        return 2;
    }
    if (cli_be->ops->probe != NULL && cli_be->ops->probe() != SE_OK) {
        fprintf(stderr, "se: backend '%s' does not answer its probe (the engine's NAME/VERSION registers, or the node)\n", backend);
        return 2;
    }
    if (i >= argc || strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
        usage(i >= argc ? stderr : stdout);
        return i >= argc ? 2 : 0;
    }
    if (strcmp(argv[i], "batch") == 0)
        return batch();
    /* The programs over sw/proto: their own flags (see docs/cli.md). */
    for (size_t p = 0; cli_programs[p].name != NULL; p++)
        if (strcmp(argv[i], cli_programs[p].name) == 0)
            return cli_programs[p].main(argc - i, argv + i);
    if (strcmp(argv[i], "names") == 0)
        return names();
    if (strcmp(argv[i], "ops") == 0) {
        for (size_t t = 0; cli_op_tables[t] != NULL; t++)
            for (const cli_op *op = cli_op_tables[t]; op->name != NULL; op++)
                printf("%-16s %s\n", op->name, op->fields);
        return 0;
    }
    return human(argv[i], argc - i - 1, argv + i + 1);
}
