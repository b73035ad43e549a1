;; Imports a sockets interface of a version the host does not link (it links wasi 0.2, whose
;; sockets refuse every address).
(module
  (import "wasi:sockets/tcp@0.3.0" "connect" (func $connect))
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (call $connect) (i32.const 1100) (i32.const 2)))
