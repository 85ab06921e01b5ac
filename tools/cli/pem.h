/* PEM and DER files for the CLI's programs (host only): certificates, P-256 private keys, and
 * writing PEM. Errors are printed as "se: <path>: <reason>". */
#ifndef SE_CLI_PEM_H
#define SE_CLI_PEM_H

#include <stddef.h>
#include <stdint.h>

/* Reads certificates from a file: PEM blocks "CERTIFICATE" (one or more) or one DER certificate.
 * Stores their DER into buf (cap bytes), pointers/lengths into certs/lens (at most max). Returns
 * the count, or -1 after printing "se: <path>: <reason>" to stderr. */
int cli_read_certs(const char *path, uint8_t *buf, size_t cap, const uint8_t **certs, size_t *lens,
                   size_t max);

/* Reads a P-256 private key: PEM "PRIVATE KEY" (PKCS#8) or "EC PRIVATE KEY" (SEC1), or DER of
 * either. key gets the 32-byte scalar. 0, or -1 after printing the reason. */
int cli_read_key(const char *path, uint8_t key[32]);

/* Writes der as one PEM block "-----BEGIN <label>-----" to path (mode 0600 if secret, else
 * 0644), replacing the file. 0, or -1 after printing the reason. */
int cli_write_pem(const char *path, const char *label, const uint8_t *der, size_t len, int secret);

#endif
