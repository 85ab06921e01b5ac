/* The CLI's backends (--backend): `sw` is the crypto library and `rtl` the engine drivers against
 * the Verilator model of the engine (both through se/backend.h); `soc` runs each operation inside
 * the simulated node (soc_backend.c). */
#include "cli.h"

static const cli_backend sw = {"sw", 1, &se_backend_sw};
static const cli_backend rtl = {"rtl", 0, &se_backend_hw};
static const cli_backend soc = {"soc", 0, &cli_soc_ops};

const cli_backend *const cli_backends[] = {&sw, &rtl, &soc, NULL};
const cli_backend *cli_be = &sw;
