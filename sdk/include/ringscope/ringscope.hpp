// Everything a plugin or an embedding program needs.
#pragma once

#include <ringscope/context.hpp>
#include <ringscope/decoder.hpp>
#include <ringscope/error.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/handler.hpp>
#include <ringscope/plugin.hpp>
#include <ringscope/resolver.hpp>
#include <ringscope/result.hpp>
#include <ringscope/text_buffer.hpp>
#include <ringscope/version.hpp>
