/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ddi/ddi.h"

const char *ddi_status_name(int status)
{
    switch (status) {
    case DDI_OK:       return "ok";
    case DDI_EINVAL:   return "EINVAL";
    case DDI_EHANDLE:  return "EHANDLE";
    case DDI_EBOUNDS:  return "EBOUNDS";
    case DDI_EOPCODE:  return "EOPCODE";
    case DDI_ENOMEM:   return "ENOMEM";
    case DDI_EBUSY:    return "EBUSY";
    case DDI_ELOST:    return "ELOST";
    case DDI_ETIMEOUT: return "ETIMEOUT";
    case DDI_ENOTSUP:  return "ENOTSUP";
    case DDI_EQUOTA:   return "EQUOTA";
    case DDI_EACCESS:  return "EACCESS";
    case DDI_EABANDONED: return "EABANDONED";
    }
    return "?";
}
