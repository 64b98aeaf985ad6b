// SPDX-License-Identifier: MIT
#pragma once

// moc (Qt 6.4) stops at C++20 standard headers it follows through this one; it needs none of them.
#ifndef Q_MOC_RUN
#include "kernels/run_session.h"
#endif

#include <QWidget>

#include <optional>
#include <string>
#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QVBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace attnscope::ui {

// The Run panel: a preset (several shapes in one run: naive vs flash, prefill vs decode, MHA vs GQA
// vs MQA) or the fields below it — backend, implementations (the SIMT ones are CUDA's), shape with K/V
// heads and KV-cache length, dtype, causal — then warm-up and measured calls, CUPTI on or off, and
// Run / Stop. The window runs what it asks for; the last
// settings are kept (QSettings).
class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    kernels::RunConfig config() const;
    // The fields from a configuration; "Custom" unless it has a preset's variants.
    void setConfig(const kernels::RunConfig& config);
    // A preset by key (runPresets()), or "" for the fields.
    void setPreset(const QString& key);
    kernels::BackendChoice backend() const;
    void setBackend(kernels::BackendChoice backend);
    void setRunning(bool running);
    void setState(const QString& text);

Q_SIGNALS:
    void runRequested();
    void stopRequested();

private:
    void save() const;
    void presetChanged();
    void backendChanged();
    void addImplementationRows(QFormLayout* form);
    void addShapeRows(QFormLayout* form);
    void addButtons(QVBoxLayout* layout);
    void restore();

    QComboBox* m_backend = nullptr;
    std::vector<std::pair<std::string, QCheckBox*>> m_impls; // naive, flash, the SIMT ones, PyTorch's
    QCheckBox* m_collect = nullptr;
    bool m_collectWanted = true;   // the user's choice, kept while the box does not apply
    std::optional<bool> m_cuda;    // whether a CUDA device answered (asked once)
    QLineEdit* m_python = nullptr; // the PyTorch backend's Python ("": pythonToRun's default)
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_heads = nullptr;
    QSpinBox* m_seq = nullptr;
    QSpinBox* m_dim = nullptr;
    QSpinBox* m_kvHeads = nullptr;
    QSpinBox* m_kvLen = nullptr;
    QComboBox* m_preset = nullptr;
    QLabel* m_presetCases = nullptr;
    std::vector<QWidget*> m_custom; // the fields a preset replaces
    QComboBox* m_dtype = nullptr;
    QCheckBox* m_causal = nullptr;
    QSpinBox* m_warmup = nullptr;
    QSpinBox* m_iters = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_state = nullptr;
};

} // namespace attnscope::ui
