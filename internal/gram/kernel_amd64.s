//go:build amd64 && !purego && !(openblas && cgo)

#include "textflag.h"

// func gramPack(u, x, data *float64, k int, rows *int, w *float64, n int)
//
// For t in [0, n), with r = rows[t]: x[t*k+j] = data[r*k+j] and
// u[t*k+j] = w[r]*data[r*k+j], j in [0, k).
TEXT ·gramPack(SB), NOSPLIT, $0-56
	MOVQ u+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ data+16(FP), DX
	MOVQ k+24(FP), R8
	MOVQ rows+32(FP), R9
	MOVQ w+40(FP), R10
	MOVQ n+48(FP), CX
	MOVQ R8, R11
	SHLQ $3, R11 // bytes per row
	MOVQ R8, R13
	ANDQ $-4, R13 // k rounded down to a multiple of 4

packrow:
	TESTQ CX, CX
	JZ    packdone
	MOVQ  (R9), AX
	VBROADCASTSD (R10)(AX*8), Y0
	MOVQ  AX, BX
	IMULQ R11, BX
	ADDQ  DX, BX
	XORQ  R12, R12

packvec:
	CMPQ    R12, R13
	JGE     packscalar
	VMOVUPD (BX)(R12*8), Y1
	VMOVUPD Y1, (SI)(R12*8)
	VMULPD  Y0, Y1, Y1
	VMOVUPD Y1, (DI)(R12*8)
	ADDQ    $4, R12
	JMP     packvec

packscalar:
	CMPQ   R12, R8
	JGE    packnext
	VMOVSD (BX)(R12*8), X1
	VMOVSD X1, (SI)(R12*8)
	VMULSD X0, X1, X1
	VMOVSD X1, (DI)(R12*8)
	INCQ   R12
	JMP    packscalar

packnext:
	ADDQ R11, DI
	ADDQ R11, SI
	ADDQ $8, R9
	DECQ CX
	JMP  packrow

packdone:
	VZEROUPPER
	RET

// func gramScale(u, data *float64, k int, rows *int, w *float64, n int)
//
// For t in [0, n), with r = rows[t]: u[t*k+j] = w[r]*data[r*k+j], j in [0, k).
TEXT ·gramScale(SB), NOSPLIT, $0-48
	MOVQ u+0(FP), DI
	MOVQ data+8(FP), DX
	MOVQ k+16(FP), R8
	MOVQ rows+24(FP), R9
	MOVQ w+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ R8, R11
	SHLQ $3, R11 // bytes per row
	MOVQ R8, R13
	ANDQ $-4, R13 // k rounded down to a multiple of 4

scalerow:
	TESTQ CX, CX
	JZ    scaledone
	MOVQ  (R9), AX
	VBROADCASTSD (R10)(AX*8), Y0
	MOVQ  AX, BX
	IMULQ R11, BX
	ADDQ  DX, BX
	XORQ  R12, R12

scalevec:
	CMPQ    R12, R13
	JGE     scalescalar
	VMULPD  (BX)(R12*8), Y0, Y1
	VMOVUPD Y1, (DI)(R12*8)
	ADDQ    $4, R12
	JMP     scalevec

scalescalar:
	CMPQ   R12, R8
	JGE    scalenext
	VMULSD (BX)(R12*8), X0, X1
	VMOVSD X1, (DI)(R12*8)
	INCQ   R12
	JMP    scalescalar

scalenext:
	ADDQ R11, DI
	ADDQ $8, R9
	DECQ CX
	JMP  scalerow

scaledone:
	VZEROUPPER
	RET

// func gramTile4x8(c *float64, ldc int, u, x *float64, ld int, n int)
//
// For a in [0, 4), b in [0, 8): c[a*ldc+b] += Σ_{t<n} u[t*ld+a]·x[t*ld+b].
// The 4×8 block of c lives in Y0..Y7 for the whole loop over t.
TEXT ·gramTile4x8(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R9
	SHLQ $3, R9
	MOVQ u+16(FP), SI
	MOVQ x+24(FP), DX
	MOVQ ld+32(FP), R8
	SHLQ $3, R8
	MOVQ n+40(FP), CX

	LEAQ    (DI)(R9*1), R10
	LEAQ    (R10)(R9*1), R11
	LEAQ    (R11)(R9*1), R12
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD (R10), Y2
	VMOVUPD 32(R10), Y3
	VMOVUPD (R11), Y4
	VMOVUPD 32(R11), Y5
	VMOVUPD (R12), Y6
	VMOVUPD 32(R12), Y7

	LEAQ (R8)(R8*1), R13 // two rows of bytes
	CMPQ CX, $2
	JL   tiletail

tileloop2:
	VMOVUPD      (DX), Y8
	VMOVUPD      32(DX), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7

	VMOVUPD      (DX)(R8*1), Y14
	VMOVUPD      32(DX)(R8*1), Y15
	VBROADCASTSD (SI)(R8*1), Y10
	VFMADD231PD  Y14, Y10, Y0
	VFMADD231PD  Y15, Y10, Y1
	VBROADCASTSD 8(SI)(R8*1), Y11
	VFMADD231PD  Y14, Y11, Y2
	VFMADD231PD  Y15, Y11, Y3
	VBROADCASTSD 16(SI)(R8*1), Y12
	VFMADD231PD  Y14, Y12, Y4
	VFMADD231PD  Y15, Y12, Y5
	VBROADCASTSD 24(SI)(R8*1), Y13
	VFMADD231PD  Y14, Y13, Y6
	VFMADD231PD  Y15, Y13, Y7

	ADDQ R13, SI
	ADDQ R13, DX
	SUBQ $2, CX
	CMPQ CX, $2
	JGE  tileloop2

tiletail:
	TESTQ        CX, CX
	JZ           tilestore
	VMOVUPD      (DX), Y8
	VMOVUPD      32(DX), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7

tilestore:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, (R10)
	VMOVUPD Y3, 32(R10)
	VMOVUPD Y4, (R11)
	VMOVUPD Y5, 32(R11)
	VMOVUPD Y6, (R12)
	VMOVUPD Y7, 32(R12)
	VZEROUPPER
	RET

// func gramTile4x4(c *float64, ldc int, u, x *float64, ld int, n int)
//
// For a in [0, 4), b in [0, 4): c[a*ldc+b] += Σ_{t<n} u[t*ld+a]·x[t*ld+b].
// Even and odd t accumulate into Y0..Y3 and Y4..Y7, summed at the end.
TEXT ·gramTile4x4(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R9
	SHLQ $3, R9
	MOVQ u+16(FP), SI
	MOVQ x+24(FP), DX
	MOVQ ld+32(FP), R8
	SHLQ $3, R8
	MOVQ n+40(FP), CX

	LEAQ    (DI)(R9*1), R10
	LEAQ    (R10)(R9*1), R11
	LEAQ    (R11)(R9*1), R12
	VMOVUPD (DI), Y0
	VMOVUPD (R10), Y1
	VMOVUPD (R11), Y2
	VMOVUPD (R12), Y3
	VXORPD  Y4, Y4, Y4
	VXORPD  Y5, Y5, Y5
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7

	LEAQ (R8)(R8*1), R13
	CMPQ CX, $2
	JL   smalltail

smallloop2:
	VMOVUPD      (DX), Y8
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y1
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y2
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y3
	VMOVUPD      (DX)(R8*1), Y9
	VBROADCASTSD (SI)(R8*1), Y10
	VFMADD231PD  Y9, Y10, Y4
	VBROADCASTSD 8(SI)(R8*1), Y11
	VFMADD231PD  Y9, Y11, Y5
	VBROADCASTSD 16(SI)(R8*1), Y12
	VFMADD231PD  Y9, Y12, Y6
	VBROADCASTSD 24(SI)(R8*1), Y13
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         R13, SI
	ADDQ         R13, DX
	SUBQ         $2, CX
	CMPQ         CX, $2
	JGE          smallloop2

smalltail:
	TESTQ        CX, CX
	JZ           smallstore
	VMOVUPD      (DX), Y8
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y1
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y2
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y3

smallstore:
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (R10)
	VMOVUPD Y2, (R11)
	VMOVUPD Y3, (R12)
	VZEROUPPER
	RET

// func gramTile8x8(c *float64, ldc int, u, x *float64, ld int, n int)
//
// For a in [0, 8), b in [0, 8): c[a*ldc+b] += Σ_{t<n} u[t*ld+a]·x[t*ld+b], with
// AVX-512: row a of the 8×8 block of c lives in Z<a> for the whole loop over t, and
// each step is one load of x's 8 columns and eight fused multiply-adds with u's
// values broadcast from memory. Every element is accumulated in the same order, by
// the same fused multiply-adds, as by gramTile4x8.
TEXT ·gramTile8x8(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R9
	SHLQ $3, R9
	MOVQ u+16(FP), SI
	MOVQ x+24(FP), DX
	MOVQ ld+32(FP), R8
	SHLQ $3, R8
	MOVQ n+40(FP), CX

	MOVQ    DI, AX
	VMOVUPD (AX), Z0
	ADDQ    R9, AX
	VMOVUPD (AX), Z1
	ADDQ    R9, AX
	VMOVUPD (AX), Z2
	ADDQ    R9, AX
	VMOVUPD (AX), Z3
	ADDQ    R9, AX
	VMOVUPD (AX), Z4
	ADDQ    R9, AX
	VMOVUPD (AX), Z5
	ADDQ    R9, AX
	VMOVUPD (AX), Z6
	ADDQ    R9, AX
	VMOVUPD (AX), Z7

	TESTQ CX, CX
	JZ    tile8store

tile8loop:
	VMOVUPD          (DX), Z8
	VFMADD231PD.BCST (SI), Z8, Z0
	VFMADD231PD.BCST 8(SI), Z8, Z1
	VFMADD231PD.BCST 16(SI), Z8, Z2
	VFMADD231PD.BCST 24(SI), Z8, Z3
	VFMADD231PD.BCST 32(SI), Z8, Z4
	VFMADD231PD.BCST 40(SI), Z8, Z5
	VFMADD231PD.BCST 48(SI), Z8, Z6
	VFMADD231PD.BCST 56(SI), Z8, Z7
	ADDQ             R8, SI
	ADDQ             R8, DX
	DECQ             CX
	JNZ              tile8loop

tile8store:
	MOVQ    DI, AX
	VMOVUPD Z0, (AX)
	ADDQ    R9, AX
	VMOVUPD Z1, (AX)
	ADDQ    R9, AX
	VMOVUPD Z2, (AX)
	ADDQ    R9, AX
	VMOVUPD Z3, (AX)
	ADDQ    R9, AX
	VMOVUPD Z4, (AX)
	ADDQ    R9, AX
	VMOVUPD Z5, (AX)
	ADDQ    R9, AX
	VMOVUPD Z6, (AX)
	ADDQ    R9, AX
	VMOVUPD Z7, (AX)
	VZEROUPPER
	RET
