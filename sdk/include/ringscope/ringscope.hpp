// Everything a plugin or an embedding program needs.
#pragma once

#include <ringscope/context.hpp>
#include <ringscope/decoder.hpp>
#include <ringscope/error.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/filter.hpp>
#include <ringscope/handler.hpp>
#include <ringscope/input_index.hpp>
#include <ringscope/log_histogram.hpp>
#include <ringscope/plugin.hpp>
#include <ringscope/resolver.hpp>
#include <ringscope/result.hpp>
#include <ringscope/sub_buffer.hpp>
#include <ringscope/text_buffer.hpp>
#include <ringscope/timeline.hpp>
#include <ringscope/trace.hpp>
#include <ringscope/version.hpp>
