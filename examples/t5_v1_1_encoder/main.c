/* t5_v1_1_encoder on the token ids given on the command line.
 * usage: t5_v1_1_encoder_demo WEIGHTS.safetensors ID [ID...] */
#include "t5_v1_1_encoder.h"

#define DEMO_MODEL t5_v1_1_encoder
#include "../common/token_demo.h"
