/* Extras of the engine-only Verilator model (sim/engine) beyond se/hal.h, for tools and tests. */
#ifndef SE_ENGINE_MODEL_H
#define SE_ENGINE_MODEL_H

#include <stdint.h>

/* Clock cycles simulated since the model was created. */
uint64_t se_engine_model_cycles(void);

#endif
