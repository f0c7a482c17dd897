/* t5_small on the token ids given on the command line.
 * usage: t5_encoder_demo WEIGHTS.safetensors ID [ID...] */
#include "t5_encoder.h"

#define DEMO_MODEL t5_small
#define DEMO_D_MODEL T5_SMALL_D_MODEL
#define DEMO_POOLED T5_SMALL_POOLED
#include "../common/token_demo.h"
