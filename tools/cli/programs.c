/* The CLI's programs over the protocol stack (sw/proto), dispatched by main.c. */
#include "cli.h"

const cli_program cli_programs[] = {
    {"client", cli_client_main},
    {"server", cli_server_main},
    {"collector", cli_collector_main},
    {"certs", cli_certs_main},
    {"load", cli_load_main},
    {NULL, NULL},
};
