// Idempotency keys and payload fingerprints.
// The declarations are public (idem/key.h); internal code may keep including this header.
#pragma once

#include "idem/key.h"
