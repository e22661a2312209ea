"""Names every file in a language uses that almost never mean a project's own definition.

`list[str]` in Python or `String` in Java would otherwise send rank to whichever project file
happens to define a `list` method or a `String` class. Uses of these names are not edges in the
ranking graph; definitions with these names still appear in the map. Lists are per language, so a
Python project's own `Map` class keeps its uses.
"""

from __future__ import annotations

import abc
import builtins
import collections.abc
import contextlib
import dataclasses
import enum
import functools
import itertools
import typing


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The builtins and the names of the standard modules nearly every file imports from: their
# only "definitions" in a project are stubs (a vendored typeshed) or test fixtures.
_STANDARD = (
    builtins,
    typing,
    abc,
    collections.abc,
    dataclasses,
    enum,
    functools,
    itertools,
    contextlib,
)
_PYTHON = frozenset(
    name for module in _STANDARD for name in dir(module) if not name.startswith("_")
) | _names("self cls")

_JVM = _names(
    "String Object Integer Long Boolean Double Float Character Byte Short Void Class "
    "Override Deprecated SuppressWarnings FunctionalInterface Exception RuntimeException "
    "Throwable Error IllegalArgumentException IllegalStateException NullPointerException "
    "List Map Set Collection Iterable Iterator Optional ArrayList HashMap HashSet "
    "LinkedHashMap Arrays Collections Objects Math System Thread Runnable Comparable Int "
    "Unit Any Nothing Array MutableList MutableMap listOf mapOf setOf println toString "
    "equals hashCode get set add put size isEmpty length of"
)

_GO = _names(
    "string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr float32 "
    "float64 complex64 complex128 bool byte rune error any comparable nil len cap append "
    "make new panic recover copy delete print println close min max clear Error String"
)

_RUST = _names(
    "Option Some None Result Ok Err Vec String Box Rc Arc RefCell Cell Self self str "
    "usize isize u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 bool char println print "
    "format vec panic assert assert_eq assert_ne write writeln Default Clone Debug Copy "
    "PartialEq Eq Hash Display From Into new clone unwrap expect iter collect map as_ref"
)

_ECMASCRIPT = _names(
    "Object Array String Number Boolean Promise Map Set WeakMap Error TypeError JSON "
    "Math Date RegExp Symbol console document window require module exports undefined "
    "Record Partial Readonly Pick Omit Exclude ReturnType React length push map filter "
    "forEach then catch toString log"
)

_C_FAMILY = _names(
    "std size_t ssize_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t "
    "uint64_t uintptr_t bool string vector map unique_ptr shared_ptr printf fprintf "
    "sprintf snprintf malloc calloc realloc free memcpy memset memmove strlen strcmp "
    "strcpy NULL nullptr assert size begin end push_back"
)

_CSHARP = _names(
    "String Object List Dictionary HashSet IEnumerable Task Console Exception Math "
    "ArgumentException ArgumentNullException InvalidOperationException Func Action "
    "ToString Equals GetHashCode Add Count var nameof"
)

_RUBY = _names("new require require_relative puts print p raise attr_reader attr_accessor")

_PHP = _names("array self static parent Exception count strlen isset empty")

COMMON_NAMES: dict[str, frozenset[str]] = {
    "python": _PYTHON,
    "java": _JVM,
    "kotlin": _JVM,
    "go": _GO,
    "rust": _RUST,
    "javascript": _ECMASCRIPT,
    "typescript": _ECMASCRIPT,
    "tsx": _ECMASCRIPT,
    "c": _C_FAMILY,
    "cpp": _C_FAMILY,
    "csharp": _CSHARP,
    "ruby": _RUBY,
    "php": _PHP,
}

__all__ = ["COMMON_NAMES"]
