;; Imports `wasi:http/outgoing-handler`: a way out to the network the host does not provide.
(module
  (import "wasi:http/outgoing-handler@0.2.0" "handle" (func $handle))
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (call $handle) (i32.const 1100) (i32.const 2)))
