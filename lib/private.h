/* SPDX-License-Identifier: GPL-2.0-or-later */
/* private.h - what every source above the core includes: core helpers and the ext4 interface */
#ifndef E2VERITY_PRIVATE_H
#define E2VERITY_PRIVATE_H

#include "core/core.h"
#include "e2verity.h"

#endif /* E2VERITY_PRIVATE_H */
