// SPDX-License-Identifier: MIT
#include "run_panel.h"

#include "kernels/cuda_backend.h"
#include "qt_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace attnscope::ui {

namespace {

QSpinBox* spin(QWidget* parent, kernels::RunLimit limit) {
    auto* s = new QSpinBox(parent);
    s->setRange(limit.lo, limit.hi);
    return s;
}

bool listed(const std::vector<std::string>& impls, const std::string& impl) {
    return std::find(impls.begin(), impls.end(), impl) != impls.end();
}

QVariant choiceData(kernels::BackendChoice choice) {
    return qs(kernels::backendChoiceName(choice));
}

} // namespace

// The form built top to bottom, as the panel looks, then filled with the last settings.
RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_preset = new QComboBox(this);
    m_preset->setObjectName("runPreset");
    m_preset->addItem(tr("Custom (the fields below)"), QString());
    for (const kernels::RunPreset& p : kernels::runPresets())
        m_preset->addItem(QString::fromStdString(p.title), QString::fromStdString(p.key));
    form->addRow(tr("Preset"), m_preset);
    m_presetCases = new QLabel(this);
    m_presetCases->setWordWrap(true);
    m_presetCases->setTextFormat(Qt::PlainText);
    form->addRow(QString(), m_presetCases);
    m_backend = new QComboBox(this);
    m_backend->setObjectName("runBackend");
    m_backend->addItem(tr("auto (CPU without a GPU)"), choiceData(kernels::BackendChoice::Auto));
    m_backend->addItem(tr("CPU"), choiceData(kernels::BackendChoice::Cpu));
    m_backend->addItem(tr("CUDA"), choiceData(kernels::BackendChoice::Cuda));
    m_backend->addItem(tr("PyTorch (its own attention)"), choiceData(kernels::BackendChoice::Torch));
    m_backend->setItemData(3, tr("PyTorch's naive attention and SDPA backends, run by the Python below"),
                           Qt::ToolTipRole);
    form->addRow(tr("Backend"), m_backend);
    addImplementationRows(form);
    addShapeRows(form);
    layout->addLayout(form);
    addButtons(layout);
    restore();
}

// A box per implementation: AttnScope's own (CPU and CUDA), CUDA's only (SIMT), then PyTorch's only
// (SDPA's backends).
void RunPanel::addImplementationRows(QFormLayout* form) {
    auto* impls = new QHBoxLayout;
    auto* cudaImpls = new QHBoxLayout;
    auto* torchImpls = new QHBoxLayout;
    const std::vector<std::string> own = kernels::cpuImpls(), cuda = kernels::cudaImpls();
    for (const std::string& name : kernels::allImpls()) {
        auto* box = new QCheckBox(qs(name), this);
        const bool simt = !listed(own, name) && listed(cuda, name);
        const bool torch = !listed(own, name) && !listed(cuda, name);
        if (simt) box->setToolTip(tr("CUDA only: hand-written fp32 SIMT kernels, for teaching"));
        if (torch) box->setToolTip(tr("PyTorch only: %1").arg(qs(kernels::torchImplText(name))));
        (simt ? cudaImpls : torch ? torchImpls : impls)->addWidget(box);
        m_impls.emplace_back(name, box);
    }
    impls->addStretch();
    cudaImpls->addStretch();
    torchImpls->addStretch();
    form->addRow(tr("Implementations"), impls);
    form->addRow(tr("CUDA only"), cudaImpls);
    form->addRow(tr("PyTorch only"), torchImpls);
}

// The Python, the shape, the calls and CUPTI.
void RunPanel::addShapeRows(QFormLayout* form) {
    m_python = new QLineEdit(this);
    m_python->setObjectName("runPython");
    m_python->setPlaceholderText(tr("ATTNSCOPE_PYTHON, else build/torch-venv, else python3"));
    m_python->setToolTip(
        tr("PyTorch backend: the Python that has torch (a virtual environment's bin/python)"));
    form->addRow(tr("Python"), m_python);
    m_batch = spin(this, kernels::limits::kBatch);
    m_heads = spin(this, kernels::limits::kHeads);
    m_seq = spin(this, kernels::limits::kSeq);
    m_dim = spin(this, kernels::limits::kDim);
    m_kvHeads = spin(this, kernels::limits::kKvHeads);
    m_kvHeads->setSpecialValueText(tr("= heads"));
    m_kvHeads->setToolTip(tr("Grouped-query attention: heads / K/V heads query heads share one K/V head (1: "
                             "multi-query)"));
    m_kvLen = spin(this, kernels::limits::kKvLen);
    m_kvLen->setSpecialValueText(tr("= sequence"));
    m_kvLen->setToolTip(tr("Keys per head: a decode step is a sequence of 1 against a long KV cache"));
    form->addRow(tr("Batch"), m_batch);
    form->addRow(tr("Heads"), m_heads);
    form->addRow(tr("Sequence length"), m_seq);
    form->addRow(tr("Head dim"), m_dim);
    form->addRow(tr("K/V heads"), m_kvHeads);
    form->addRow(tr("KV length"), m_kvLen);
    m_dtype = new QComboBox(this);
    for (Precision d : {Precision::F32, Precision::F16, Precision::BF16})
        m_dtype->addItem(qs(precisionName(d)));
    form->addRow(tr("Dtype"), m_dtype);
    m_causal = new QCheckBox(tr("causal mask"), this);
    form->addRow(QString(), m_causal);
    m_custom = {m_batch, m_heads, m_seq, m_dim, m_kvHeads, m_kvLen, m_dtype, m_causal};
    for (const auto& [name, box] : m_impls)
        m_custom.push_back(box);
    m_warmup = spin(this, kernels::limits::kWarmup);
    m_iters = spin(this, kernels::limits::kIters);
    form->addRow(tr("Warm-up calls"), m_warmup);
    form->addRow(tr("Measured calls"), m_iters);
    m_collect = new QCheckBox(tr("record kernels with CUPTI"), this);
    form->addRow(QString(), m_collect);
    // The box shows the user's choice only where it applies (a CUDA run); elsewhere it is unticked.
    connect(m_collect, &QCheckBox::toggled, this, [this](bool on) {
        if (m_collect->isEnabled()) m_collectWanted = on;
    });
}

void RunPanel::addButtons(QVBoxLayout* layout) {
    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"), this);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setEnabled(false);
    buttons->addWidget(m_run);
    buttons->addWidget(m_stop);
    layout->addLayout(buttons);
    m_state = new QLabel(this);
    m_state->setWordWrap(true);
    m_state->setTextFormat(Qt::PlainText);
    layout->addWidget(m_state);
    layout->addStretch();
    connect(m_run, &QPushButton::clicked, this, [this] {
        save();
        Q_EMIT runRequested();
    });
    connect(m_stop, &QPushButton::clicked, this, &RunPanel::stopRequested);
    connect(m_preset, &QComboBox::currentIndexChanged, this, &RunPanel::presetChanged);
    connect(m_backend, &QComboBox::currentIndexChanged, this, &RunPanel::backendChanged);
}

// The last settings, else the defaults (B=1, H=8, N=2048, D=64, fp32, naive and flash).
void RunPanel::restore() {
    kernels::RunConfig c;
    QSettings s;
    c.shape.batch = s.value("run/batch", c.shape.batch).toInt();
    c.shape.heads = s.value("run/heads", c.shape.heads).toInt();
    c.shape.seq = s.value("run/seq", c.shape.seq).toInt();
    c.shape.dim = s.value("run/dim", c.shape.dim).toInt();
    c.shape.kvHeads = s.value("run/kvHeads", c.shape.kvHeads).toInt();
    c.shape.kvLen = s.value("run/kvLen", c.shape.kvLen).toInt();
    c.shape.causal = s.value("run/causal", c.shape.causal).toBool();
    c.warmup = s.value("run/warmup", c.warmup).toInt();
    c.iters = s.value("run/iters", c.iters).toInt();
    c.collect = s.value("run/cupti", c.collect).toBool();
    m_python->setText(s.value("run/python").toString());
    m_backend->setCurrentIndex(
        std::max(0, m_backend->findData(s.value("run/backend", choiceData(kernels::BackendChoice::Auto)))));
    const Precision dtype = precisionNamed(s.value("run/dtype").toString().toStdString());
    c.shape.dtype = dtype == Precision::F16 || dtype == Precision::BF16 ? dtype : Precision::F32;
    c.impls.clear();
    QStringList defaults;
    for (const std::string& impl : kernels::cpuImpls())
        defaults << qs(impl);
    for (const QString& i : s.value("run/impls", defaults).toStringList())
        c.impls.push_back(i.toStdString());
    setConfig(c);
    // The first start shows the contrasts the product is about (the window runs it at once).
    setPreset(s.value("run/preset", QStringLiteral("first-look")).toString());
}

void RunPanel::setPreset(const QString& key) {
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(key)));
    presetChanged();
}

void RunPanel::presetChanged() {
    const kernels::RunPreset* preset =
        kernels::findRunPreset(m_preset->currentData().toString().toStdString());
    for (QWidget* w : m_custom)
        w->setEnabled(!preset);
    QString cases;
    if (preset)
        for (const kernels::RunVariant& v : preset->variants) {
            QString impls;
            for (const std::string& i : v.impls)
                impls += (impls.isEmpty() ? "" : ", ") + QString::fromStdString(i);
            cases += tr("%1%2: %3 (%4)")
                         .arg(cases.isEmpty() ? "" : "\n", QString::fromStdString(v.name),
                              QString::fromStdString(kernels::describeShape(v.shape)), impls);
        }
    m_presetCases->setText(cases);
    m_presetCases->setVisible(preset != nullptr);
    backendChanged();
}

kernels::RunConfig RunPanel::config() const {
    kernels::RunConfig c;
    c.impls.clear();
    // The implementations of the chosen backend: PyTorch's (naive and flash are its too), or AttnScope's.
    const std::vector<std::string> offered = kernels::implsOffered(backend());
    for (const auto& [name, box] : m_impls)
        if (box->isChecked() && listed(offered, name)) c.impls.push_back(name);
    c.collect = m_collectWanted;
    c.python = m_python->text().trimmed().toStdString();
    c.shape.batch = m_batch->value();
    c.shape.heads = m_heads->value();
    c.shape.seq = m_seq->value();
    c.shape.dim = m_dim->value();
    c.shape.kvHeads = m_kvHeads->value();
    c.shape.kvLen = m_kvLen->value();
    c.shape.causal = m_causal->isChecked();
    const QString dtype = m_dtype->currentText();
    c.shape.dtype = dtype == "fp16" ? Precision::F16 : dtype == "bf16" ? Precision::BF16 : Precision::F32;
    c.warmup = m_warmup->value();
    c.iters = m_iters->value();
    if (const kernels::RunPreset* preset =
            kernels::findRunPreset(m_preset->currentData().toString().toStdString()))
        c.variants = preset->variants;
    return c;
}

void RunPanel::setConfig(const kernels::RunConfig& c) {
    for (const auto& [name, box] : m_impls)
        box->setChecked(std::find(c.impls.begin(), c.impls.end(), name) != c.impls.end());
    m_collectWanted = c.collect;
    m_collect->setChecked(c.collect && m_collect->isEnabled());
    m_batch->setValue(c.shape.batch);
    m_heads->setValue(c.shape.heads);
    m_seq->setValue(c.shape.seq);
    m_dim->setValue(c.shape.dim);
    m_kvHeads->setValue(c.shape.kvHeads);
    m_kvLen->setValue(c.shape.kvLen);
    m_causal->setChecked(c.shape.causal);
    m_dtype->setCurrentText(QString::fromLatin1(precisionName(c.shape.dtype).data(),
                                                qsizetype(precisionName(c.shape.dtype).size())));
    m_warmup->setValue(c.warmup);
    m_iters->setValue(c.iters);
    QString preset;
    for (const kernels::RunPreset& p : kernels::runPresets())
        if (!c.variants.empty() && p.variants.size() == c.variants.size() &&
            std::equal(p.variants.begin(), p.variants.end(), c.variants.begin(),
                       [](const auto& a, const auto& b) { return a.name == b.name; }))
            preset = QString::fromStdString(p.key);
    setPreset(preset);
}

void RunPanel::backendChanged() {
    // Each backend's own implementations can be ticked; the Python is the PyTorch backend's.
    const kernels::BackendChoice b = backend();
    const bool preset = !m_preset->currentData().toString().isEmpty();
    const std::vector<std::string> offered = kernels::implsOffered(b);
    for (const auto& [name, box] : m_impls)
        box->setEnabled(!preset && listed(offered, name));
    m_python->setEnabled(b == kernels::BackendChoice::Torch);
    // CUPTI is AttnScope's CUDA backend's: Auto runs there only where a CUDA device answers.
    if (!m_cuda) m_cuda = kernels::probeCuda().runnable;
    const bool cuda = b == kernels::BackendChoice::Cuda || (b == kernels::BackendChoice::Auto && *m_cuda);
    m_collect->setEnabled(cuda);
    m_collect->setChecked(cuda && m_collectWanted);
    m_collect->setToolTip(cuda ? tr("CUDA: off times the calls only, to measure what collection costs")
                               : tr("CUPTI records an NVIDIA GPU's kernels; this run is on the CPU, whose "
                                    "kernels AttnScope records as it runs them"));
}

void RunPanel::setBackend(kernels::BackendChoice backend) {
    if (const int index = m_backend->findData(choiceData(backend)); index >= 0)
        m_backend->setCurrentIndex(index);
}

kernels::BackendChoice RunPanel::backend() const {
    return kernels::backendChoiceNamed(m_backend->currentData().toString().toStdString())
        .value_or(kernels::BackendChoice::Auto);
}

void RunPanel::setRunning(bool running) {
    m_run->setEnabled(!running);
    m_stop->setEnabled(running);
}

void RunPanel::setState(const QString& text) {
    m_state->setText(text);
}

void RunPanel::save() const {
    const kernels::RunConfig c = config();
    QSettings s;
    s.setValue("run/batch", c.shape.batch);
    s.setValue("run/heads", c.shape.heads);
    s.setValue("run/seq", c.shape.seq);
    s.setValue("run/dim", c.shape.dim);
    s.setValue("run/kvHeads", c.shape.kvHeads);
    s.setValue("run/kvLen", c.shape.kvLen);
    s.setValue("run/preset", m_preset->currentData().toString());
    s.setValue("run/causal", c.shape.causal);
    s.setValue("run/warmup", c.warmup);
    s.setValue("run/iters", c.iters);
    s.setValue("run/dtype", m_dtype->currentText());
    s.setValue("run/cupti", c.collect);
    s.setValue("run/backend", choiceData(backend()));
    s.setValue("run/python", m_python->text().trimmed());
    QStringList impls;
    for (const std::string& i : c.impls)
        impls << QString::fromStdString(i);
    s.setValue("run/impls", impls);
}

} // namespace attnscope::ui
