/* The op dispatch behind `se batch` and the human subcommands: one request object -> one response
 * object, and one JSON line in -> one JSON line out (cli_batch_line, also the fuzzers' entry:
 * tests/fuzz/fuzz_cli_batch.c). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

extern const char *cli_failed_field;

const cli_op *const cli_op_tables[] = {cli_ops_hash, cli_ops_sym, cli_ops_drbg, cli_ops_ecp,
                                       cli_ops_x509, NULL};

/* The op named `name`, or NULL. */
static const cli_op *find_op(const char *name)
{
    for (size_t t = 0; cli_op_tables[t] != NULL; t++)
        for (const cli_op *op = cli_op_tables[t]; op->name != NULL; op++)
            if (strcmp(op->name, name) == 0)
                return op;
    return NULL;
}

json_t *cli_run_request(const json_t *req, int *ok)
{
    json_t *resp = json_object();
    const json_t *id = json_object_get(req, "id");
    const char *name = json_string_value(json_object_get(req, "op"));
    const cli_op *op = name ? find_op(name) : NULL;
    se_status st;

    cli_failed_field = NULL;
    if (!json_is_object(req))
        st = SE_ERR_BAD_INPUT;
    else if (op == NULL)
        st = name ? SE_ERR_UNKNOWN_OP : SE_ERR_BAD_INPUT;
    else
        st = op->fn(req, resp);
    if (st != SE_OK) {
        json_object_clear(resp);
        json_object_set_new(resp, "error", json_string(se_status_name(st)));
        if (cli_failed_field != NULL)
            json_object_set_new(resp, "field", json_string(cli_failed_field));
        if (name == NULL)
            json_object_set_new(resp, "field", json_string("op"));
    }
    if (id != NULL)
        json_object_set(resp, "id", (json_t *)id);
    *ok = st == SE_OK;
    return resp;
}

int cli_batch_line(const char *line, FILE *out)
{
    json_error_t jerr;
    json_t *req, *resp;
    int ok;

    if (strspn(line, " \t\r\n") == strlen(line))
        return 1;
    req = json_loads(line, 0, &jerr);
    if (req == NULL) {
        resp = json_pack("{s:s, s:s}", "error", "bad_input", "detail", jerr.text);
        if (resp == NULL) /* the parser's message quotes the line, which may not be UTF-8 */
            resp = json_pack("{s:s}", "error", "bad_input");
        ok = 0;
    } else {
        resp = cli_run_request(req, &ok);
        json_decref(req);
    }
    char *text = json_dumps(resp, JSON_COMPACT);
    fputs(text, out);
    fputc('\n', out);
    fflush(out);
    free(text);
    json_decref(resp);
    return ok;
}
