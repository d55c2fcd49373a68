"""XML to model: secure lxml reading and compilation into `model.Definitions`."""

from bpmn_engine.parse.reader import compile_definitions, compile_tree, load_file, load_source

__all__ = ["compile_definitions", "compile_tree", "load_file", "load_source"]
