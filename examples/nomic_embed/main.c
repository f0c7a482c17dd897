/* nomic_embed on the token ids given on the command line.
 * usage: nomic_embed_demo WEIGHTS.safetensors ID [ID...] */
#include "nomic_embed.h"

#define DEMO_MODEL nomic_embed
#include "../common/token_demo.h"
