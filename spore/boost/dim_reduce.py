"""``DimReduce``: MindSpore's dimension-reduction boost, a quasi-Newton step in the span of
the first ``n_components`` principal directions of the weights' trajectory plus a
momentum step on the rest of the gradient, with a backtracking line search.

With ``pca_mat`` (k, n) the local principal directions over all n weights, one step is::

    g_k  = pca_mat @ grad                      # the gradient in the k-dim subspace
    B    = BFGS update of B from (g_k - g_k_last, s_k)
    d_k  = -B @ g_k                            # the quasi-Newton direction
    d_n  = pca_mat.T @ d_k                     # back in weight space
    rho  = the first of rho**0, rho**1 (else 0) with
           loss(w - rho * d_n) < loss(w) + sigma * rho * g_k.T @ d_k
    m    = gamma * m + grad - pca_mat.T @ g_k  # momentum of the residual gradient
    the optimizer then applies  alpha * m - rho * d_n   (an SGD with lr 1 in MindSpore)
"""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from .._dtype import float32
from .._parameter import Parameter, ParameterTuple
from .._tensor import Tensor
from ..nn import Cell


def _assign(parameter, value):
    ops.assign(parameter, value)
    return parameter


class DimReduce(Cell):
    """One dimension-reduced update (see the module docstring).

    Args:
        network (Cell): the training network (returns the loss; run again in the line
            search).
        optimizer (Cell): applies the final delta (MindSpore uses ``SGD(lr=1)``).
        weight (ParameterTuple): the trained weights.
        pca_mat_local (numpy.ndarray): this rank's rows of the PCA matrix, shape
            ``(ceil(n_components / rank_size), sum of weight sizes)``.
        n_components (int): number of principal components.
        rho, gamma, alpha, sigma (float): line-search factor, momentum, residual step and
            Armijo constant.
        rank (int), rank_size (int): this process and the number of processes (only
            ``rank_size == 1`` is supported: the broadcasts of the distributed version are
            not implemented in Spore).

    Inputs: ``loss, old_grad, loss_scale, weight, weight_clone, *inputs``: ``old_grad`` is
    scaled by ``loss_scale`` (divided out for the projection; the residual momentum uses it
    as given, as MindSpore's does), ``weight_clone`` holds a copy of the weights (restored
    after each line-search trial, refreshed after the update). Output: ``loss``.
    """

    def __init__(self, network, optimizer, weight, pca_mat_local, n_components, rho, gamma,
                 alpha, sigma, rank, rank_size):
        super().__init__()
        if rank_size != 1:
            raise NotImplementedError("DimReduce over several processes (rank_size > 1) is not "
                                      "implemented in Spore; it runs on one process.")
        self.network = network
        self.optimizer = optimizer
        self.rank = rank
        self.rank_size = rank_size
        self.gamma = gamma
        self.alpha = alpha
        self.sigma = sigma
        self.max_search_time = 2
        self.rho_list = [Tensor(np.power(rho, i), float32) for i in range(self.max_search_time)]
        self.rho_list.append(Tensor(0, float32))
        self._set_local_pca_mat(pca_mat_local, n_components, weight)
        self._set_init_parameter(weight)

    def _set_local_pca_mat(self, pca_mat_local, n_components, parameter_tuple):
        self.n_components = n_components
        local_dim = math.ceil(n_components // self.rank_size)
        self.start_index, self.end_index = self.rank * local_dim, (self.rank + 1) * local_dim
        start, pieces = 0, []
        for param in parameter_tuple:
            size = int(np.prod(param.shape))
            pieces.append(Tensor(np.asarray(pca_mat_local)[:, start:start + size], float32))
            start += size
        self.pca_list_local = tuple(pieces)
        pad_num = self.rank_size * local_dim - n_components
        self.dk_pad_flag = bool(pad_num)
        if pad_num:
            self.dk_pad_part = Tensor(np.zeros([pad_num, 1]), float32)

    def _set_init_parameter(self, parameter_tuple):
        k = self.n_components
        self.epsilon = 1e-20
        self.gk_last = Parameter(Tensor(np.zeros([k, 1]), float32), name="gk_last")
        self.gk_last_init = Parameter(Tensor(False), name="gk_last_init")
        self.bk = Parameter(Tensor(np.eye(k), float32), name="bk")
        self.sk = Parameter(Tensor(np.zeros([k, 1]), float32), name="sk")
        self.eye = Tensor(np.eye(k), float32)
        self.grad_res_momentum = ParameterTuple(parameter_tuple).clone(
            prefix="grad_res_momentum", init="zeros")
        self.gk_last_back = Parameter(Tensor(np.zeros([k, 1]), float32), name="gk_last_back")
        self.bk_back = Parameter(Tensor(np.eye(k), float32), name="bk_back")

    def construct(self, loss, old_grad, loss_scale, weight, weight_clone, *inputs):
        gk, old_loss, gk_local = self._generate_gk(loss, old_grad, loss_scale)
        _assign(self.gk_last_back, self.gk_last)
        _assign(self.bk_back, self.bk)
        dk = self._apply_quasi_newton_update(gk)
        dk_pad = ops.concat((dk, self.dk_pad_part)) if self.dk_pad_flag else dk
        dk_local = dk_pad[self.start_index:self.end_index, :]
        dn = tuple(self._back_project(dk_local, p, g)
                   for p, g in zip(self.pca_list_local, old_grad))
        grad_proj = tuple(self._back_project(gk_local, p, g)
                          for p, g in zip(self.pca_list_local, old_grad))
        rho, find = self._line_search(gk, dk, dn, old_loss, weight, weight_clone, *inputs)
        if not find:
            _assign(self.gk_last, self.gk_last_back)
            _assign(self.bk, self.bk_back)
        self._res_loss(old_grad, grad_proj, weight, weight_clone, rho, dn)
        return loss

    @staticmethod
    def _scaled(grads, loss_scale):
        return tuple(ops.div(ops.cast(g, float32), loss_scale) for g in grads)

    @staticmethod
    def _back_project(coeffs, pca_mat, grad):
        return ops.reshape(ops.matmul(ops.transpose(pca_mat, (1, 0)), coeffs), grad.shape)

    def _generate_gk(self, loss, old_grad, loss_scale):
        old_grad = self._scaled(old_grad, loss_scale)
        gk_local = ops.addn([ops.matmul(p, ops.reshape(g, (-1, 1)))
                             for p, g in zip(self.pca_list_local, old_grad)])
        gk = ops.reshape(gk_local, (-1, 1))[0:self.n_components, :]
        return gk, loss, gk_local

    def _line_search(self, gk, dk, dn, old_loss, weight, weight_clone, *inputs):
        for i in range(self.max_search_time):
            if self._find_rho(gk, dk, dn, old_loss, weight, weight_clone, self.rho_list[i],
                              *inputs):
                return self.rho_list[i], True
        return self.rho_list[-1], False

    def _find_rho(self, gk, dk, dn, old_loss, weight, weight_clone, rho, *inputs):
        """Try ``w - rho * d_n`` (through the optimizer), keep ``s_k = rho * d_k`` when the
        Armijo condition holds, and restore the weights."""
        self.optimizer(tuple(ops.mul(d, -1 * rho) for d in dn))
        new_loss = self.network(*inputs)
        bound = old_loss + self.sigma * rho * ops.squeeze(
            ops.matmul(ops.transpose(gk, (1, 0)), dk))
        found = bool((bound > new_loss).asnumpy())
        if found:
            _assign(self.sk, rho * dk)
        for w, c in zip(weight, weight_clone):
            _assign(w, c)
        return found

    def _apply_quasi_newton_update(self, gk):
        """The BFGS update of the inverse Hessian estimate ``B`` (skipped unless
        ``y_k . s_k > epsilon``), then ``d_k = -B @ g_k``."""
        if bool(self.gk_last_init.asnumpy()):
            yk = gk - self.gk_last
            g = float(ops.squeeze(ops.matmul(ops.transpose(yk, (1, 0)), self.sk)).asnumpy())
            if g > self.epsilon:
                pk = 1.0 / g
                t1 = self.eye - ops.matmul(pk * yk, ops.transpose(self.sk, (1, 0)))
                new_bk = ops.matmul(ops.matmul(ops.transpose(t1, (1, 0)), self.bk), t1) + \
                    ops.matmul(pk * self.sk, ops.transpose(self.sk, (1, 0)))
                _assign(self.bk, new_bk)
        else:
            _assign(self.gk_last_init, Tensor(True))
        _assign(self.gk_last, gk)
        return -1 * ops.matmul(self.bk, gk)

    def _res_loss(self, old_grad, grad_proj, weight, weight_clone, rho, dn):
        deltas = []
        for m, g, p, d in zip(self.grad_res_momentum, old_grad, grad_proj, dn):
            new_m = self.gamma * m + g - p
            _assign(m, new_m)
            deltas.append(self.alpha * new_m - rho * d)
        self.optimizer(tuple(deltas))
        for c, w in zip(weight_clone, weight):
            _assign(c, w)
