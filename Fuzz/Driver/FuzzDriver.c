// Declarations only: see include/FuzzDriver.h.
#include "FuzzDriver.h"
