/* Field readers and writers shared by all CLI ops (hex <-> bytes, integers, strings). */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "cli.h"

/* Name of the field the last reader failed on, reported next to the error. */
const char *cli_failed_field;

se_status cli_fail(const char *field, se_status st)
{
    if (st != SE_OK)
        cli_failed_field = field;
    return st;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

se_status cli_hex_opt(const json_t *req, const char *field, uint8_t *buf, size_t cap, size_t *len,
                      int *present)
{
    const json_t *v = json_object_get(req, field);

    *len = 0;
    if (present)
        *present = v != NULL;
    if (v == NULL)
        return SE_OK;
    if (!json_is_string(v))
        return cli_fail(field, SE_ERR_BAD_INPUT);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (n % 2 != 0)
        return cli_fail(field, SE_ERR_BAD_HEX);
    if (n / 2 > cap)
        return cli_fail(field, SE_ERR_BAD_LENGTH);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return cli_fail(field, SE_ERR_BAD_HEX);
        buf[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return SE_OK;
}

se_status cli_hex(const json_t *req, const char *field, uint8_t *buf, size_t cap, size_t *len)
{
    int present;
    se_status st = cli_hex_opt(req, field, buf, cap, len, &present);
    if (st == SE_OK && !present)
        return cli_fail(field, SE_ERR_BAD_INPUT);
    return st;
}

se_status cli_uint_opt(const json_t *req, const char *field, unsigned long *v, unsigned long dflt)
{
    const json_t *j = json_object_get(req, field);

    *v = dflt;
    if (j == NULL)
        return SE_OK;
    if (json_is_integer(j)) {
        if (json_integer_value(j) < 0)
            return cli_fail(field, SE_ERR_BAD_INPUT);
        *v = (unsigned long)json_integer_value(j);
        return SE_OK;
    }
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        char *end;
        if (*s < '0' || *s > '9')
            return cli_fail(field, SE_ERR_BAD_INPUT);
        *v = strtoul(s, &end, 10);
        if (*end != '\0')
            return cli_fail(field, SE_ERR_BAD_INPUT);
        return SE_OK;
    }
    return cli_fail(field, SE_ERR_BAD_INPUT);
}

se_status cli_uint(const json_t *req, const char *field, unsigned long *v)
{
    if (json_object_get(req, field) == NULL)
        return cli_fail(field, SE_ERR_BAD_INPUT);
    return cli_uint_opt(req, field, v, 0);
}

se_status cli_str_opt(const json_t *req, const char *field, const char **s, const char *dflt)
{
    const json_t *j = json_object_get(req, field);

    *s = dflt;
    if (j == NULL)
        return SE_OK;
    if (!json_is_string(j))
        return cli_fail(field, SE_ERR_BAD_INPUT);
    *s = json_string_value(j);
    return SE_OK;
}

se_status cli_str(const json_t *req, const char *field, const char **s)
{
    if (json_object_get(req, field) == NULL)
        return cli_fail(field, SE_ERR_BAD_INPUT);
    return cli_str_opt(req, field, s, NULL);
}

char *cli_to_hex(char *out, const uint8_t *buf, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[buf[i] >> 4];
        out[2 * i + 1] = digits[buf[i] & 15];
    }
    out[2 * len] = '\0';
    return out;
}

void cli_put_hex(json_t *resp, const char *field, const uint8_t *buf, size_t len)
{
    static char hex[2 * CLI_MAX_BYTES + 1];
    json_object_set_new(resp, field, json_string(cli_to_hex(hex, buf, len > CLI_MAX_BYTES ? CLI_MAX_BYTES : len)));
}

void cli_put_str(json_t *resp, const char *field, const char *s)
{
    json_object_set_new(resp, field, json_string(s));
}

void cli_put_uint(json_t *resp, const char *field, unsigned long v)
{
    json_object_set_new(resp, field, json_integer((json_int_t)v));
}

void cli_put_bool(json_t *resp, const char *field, int v)
{
    json_object_set_new(resp, field, json_boolean(v));
}

se_status cli_os_random(uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t got = getrandom(buf, len, 0);
        if (got <= 0)
            return SE_ERR_BACKEND;
        buf += got;
        len -= (size_t)got;
    }
    return SE_OK;
}
