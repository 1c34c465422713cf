// Planning one message, without the database: payload limit, handler lookup,
// key and fingerprint. Bad input is decided here (parked with its reason); a
// message that passes is planned to run (BatchItem::spec set).
#pragma once

#include <string>
#include <unordered_map>

#include "core/batch_item.h"
#include "idem/handler.h"
#include "idem/pipeline.h"

namespace idem {

// Handlers by topic.
using HandlerTable = std::unordered_map<std::string, HandlerSpec>;

// Plans `item`. Whatever the payload makes key derivation do (a throw too)
// costs this message only. REQUIRES: item.msg set; `handlers` outlives the item.
void PlanItem(BatchItem& item, const HandlerTable& handlers, const PipelineOptions& options);

}  // namespace idem
